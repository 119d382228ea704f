//! SQL functions tlc registers on the connections that read views, so that a view the operator's
//! `sqlite3` shell can run also runs in tlc. The hook's connection gets none: it reads no view.

use rusqlite::functions::FunctionFlags;
use rusqlite::types::ValueRef;
use rusqlite::Connection;
use sha3::{Digest, Sha3_224, Sha3_256, Sha3_384, Sha3_512};

/// Registers `sha3(X[, SIZE])` as the `sqlite3` shell defines it (its `shathree` extension): the
/// SHA3 digest of X as a blob, SIZE 224, 256 (the default), 384 or 512 bits; a text X is hashed
/// as its UTF-8 bytes, a number as its text, NULL gives NULL. The view `attestation_chain` uses it.
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    for args in [1, 2] {
        conn.create_scalar_function("sha3", args, flags, |ctx| {
            let size: i64 = if ctx.len() > 1 { ctx.get(1)? } else { 256 };
            let bytes: Vec<u8> = match ctx.get_raw(0) {
                ValueRef::Null => return Ok(None),
                ValueRef::Text(t) | ValueRef::Blob(t) => t.to_vec(),
                ValueRef::Integer(i) => i.to_string().into_bytes(),
                ValueRef::Real(f) => f.to_string().into_bytes(),
            };
            let digest = match size {
                224 => Sha3_224::digest(&bytes).to_vec(),
                256 => Sha3_256::digest(&bytes).to_vec(),
                384 => Sha3_384::digest(&bytes).to_vec(),
                512 => Sha3_512::digest(&bytes).to_vec(),
                other => {
                    return Err(rusqlite::Error::UserFunctionError(
                        format!("sha3: SIZE must be 224, 256, 384 or 512, not {other}").into(),
                    ))
                }
            };
            Ok(Some(digest))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha3_matches_the_sqlite_shell() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        super::register(&conn).unwrap();
        let hex = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, Option<String>>(0)).unwrap();
        // The standard vector, which `sqlite3 :memory: "select lower(hex(sha3('abc',256)))"` prints.
        assert_eq!(
            hex("select lower(hex(sha3('abc', 256)))").as_deref(),
            Some("3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532")
        );
        assert_eq!(
            hex("select lower(hex(sha3('abc')))"),
            hex("select lower(hex(sha3(x'616263', 256)))")
        );
        assert_eq!(hex("select sha3(null)"), None);
        assert!(conn.query_row("select sha3('abc', 100)", [], |r| r.get::<_, Vec<u8>>(0)).is_err());
    }
}
