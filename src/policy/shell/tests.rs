use super::classify::{classify, Class};
use super::invocation::invocation;
use super::parse::RedirTarget;
use super::*;

fn words(s: &Script, i: usize) -> Vec<String> {
    s.commands[i].words.iter().map(|w| w.text()).collect()
}

fn ok(src: &str) -> Script {
    parse(src).unwrap_or_else(|e| panic!("{src:?}: {e}"))
}

#[test]
fn splits_on_every_separator() {
    let s = ok("a 1 && b 2 || c; d | e\nf & g |& h");
    let heads: Vec<String> = (0..s.commands.len()).map(|i| words(&s, i)[0].clone()).collect();
    assert_eq!(heads, ["a", "b", "c", "d", "e", "f", "g", "h"]);
    assert_eq!(s.commands[4].upstream, vec![3]);
    assert_eq!(s.commands[7].upstream, vec![6]);
}

#[test]
fn quotes_and_escapes_are_literal() {
    let s = ok(r#"echo "a; b" 'c | d' e\;f "x\"y" $'\x72m\n'"#);
    assert_eq!(s.commands.len(), 1);
    assert_eq!(words(&s, 0), ["echo", "a; b", "c | d", "e;f", "x\"y", "rm\n"]);
}

#[test]
fn substitutions_are_parsed_not_split() {
    let s = ok("echo $(a; b) `c | d` tail");
    assert_eq!(s.commands.len(), 1);
    let w = &s.commands[0].words[1];
    let inner: Vec<&Script> = w.scripts().collect();
    assert_eq!(inner[0].commands.len(), 2);
    let bt: Vec<&Script> = s.commands[0].words[2].scripts().collect();
    assert_eq!(bt[0].commands[1].upstream, vec![0]);
    let s = ok("diff <(curl x) >(tee y) z");
    assert_eq!(s.commands[0].words[1].scripts().count(), 1);
    let s = ok("echo ${X:-$(rm -rf /)}");
    assert_eq!(s.commands[0].words[1].scripts().count(), 1);
}

#[test]
fn heredocs_are_data_unless_they_expand() {
    let s = ok("cat > run.sh <<'EOF'\nrm -rf /\nEOF\necho done");
    assert_eq!(s.commands.len(), 2);
    match &s.commands[0].redirects[1].target {
        RedirTarget::HereDoc(d) => {
            assert_eq!(d.body, "rm -rf /\n");
            assert!(!d.expands);
        }
        other => panic!("{other:?}"),
    }
    let s = ok("cat <<EOF\n$(rm -rf /)\nEOF\n");
    match &s.commands[0].redirects[0].target {
        RedirTarget::HereDoc(d) => assert_eq!(d.subs.len(), 1),
        other => panic!("{other:?}"),
    }
    let s = ok("cat <<-EOF | wc -l\n\tx\n\tEOF\nls");
    assert_eq!(s.commands.len(), 3);
    assert_eq!(s.commands[1].upstream, vec![0]);
}

#[test]
fn compound_commands_flatten_and_keep_pipes() {
    let s = ok("if a; then b; elif c; then d; else e; fi");
    assert_eq!(s.commands.len(), 5);
    let s = ok("for u in a b; do curl $u; done | sh");
    let sh = s.commands.last().unwrap();
    assert_eq!(words(&s, s.commands.len() - 1), ["sh"]);
    assert!(!sh.upstream.is_empty());
    let s = ok("case $x in a|b) rm -f y;; (c) echo;; esac");
    assert_eq!(s.commands.len(), 2);
    let s = ok("f() { rm -rf /; }; while read l; do echo $l; done < in.txt");
    assert_eq!(words(&s, 0), ["rm", "-rf", "/"]);
    let s = ok("{ a; b; } > out; (c && d) 2>&1; [[ $a > b && -n $c ]]; (( i++ )); x=(1 2 $(e))");
    assert!(s.commands.iter().any(|c| c.words.is_empty() && !c.redirects.is_empty()));
    assert!(s
        .commands
        .iter()
        .any(|c| c.words.first().is_some_and(|w| w.text() == "[[") && c.words.len() == 8));
    assert!(s.commands.last().unwrap().assigns[0].1.scripts().count() == 1);
}

#[test]
fn unsplittable_input_is_an_error() {
    for bad in [
        "echo 'unterminated",
        "echo \"unterminated",
        "cat <<EOF\nhello\n",
        "echo $(ls",
        "echo `ls",
        "echo ${X",
        "echo $((1+",
        "if true; then echo",
        "echo a )",
        "fi",
        "echo a\0b",
        "a &&",
        "a | | b",
    ] {
        assert!(parse(bad).is_err(), "{bad:?} should not parse");
    }
}

#[test]
fn hostile_sizes_are_bounded() {
    let deep = format!("{}{}", "echo $(".repeat(10_000), ")".repeat(10_000));
    assert!(parse(&deep).unwrap_err().message.contains("nested"));
    let braces = format!("{}echo;{}", "{ ".repeat(1000), "} ".repeat(1000));
    assert!(parse(&braces).is_err());
    let big = format!("echo {}", "a".repeat(1 << 20));
    assert_eq!(parse(&big).unwrap().commands.len(), 1);
    let pipes = "a | ".repeat(10_000) + "b";
    assert_eq!(parse(&pipes).unwrap().commands.len(), 10_001);
}

#[test]
fn wrappers_are_seen_through() {
    for (src, program, via) in [
        ("env -i /bin/rm -rf x", "rm", vec!["env"]),
        ("sudo -u root -n rm x", "rm", vec!["sudo"]),
        ("env FOO=bar nice -n 5 timeout 10 rm x", "rm", vec!["env", "nice", "timeout"]),
        ("xargs -0 -n1 rm -f", "rm", vec!["xargs"]),
        ("command rm x", "rm", vec!["command"]),
        ("nohup stdbuf -oL ./run.sh", "run.sh", vec!["nohup", "stdbuf"]),
    ] {
        let s = ok(src);
        let inv = invocation(&s.commands[0]);
        assert_eq!(inv.program.as_deref(), Some(program), "{src}");
        assert_eq!(inv.via, via, "{src}");
    }
    assert!(invocation(&ok("xargs rm").commands[0]).args_from_stdin);
    assert!(invocation(&ok("command -v rm").commands[0]).lookup_only);
    assert!(invocation(&ok("env -S 'rm -rf /'").commands[0]).split_string.is_some());
}

#[test]
fn classifier_table_per_class() {
    let class = |src: &str| classify(&ok(src).commands[0]);
    for src in [
        "cat a",
        "grep -rn x .",
        "ls -la",
        "git status",
        "git log --oneline",
        "sed s/a/b/ f",
        "echo x > /dev/null",
        "find . -name x",
    ] {
        assert_eq!(class(src), Class::Read, "{src}");
    }
    for src in [
        "mkdir -p a",
        "touch a",
        "echo x >> log",
        "tee -a log",
        "cp -n a b",
        "cargo test",
        "git commit -m x",
        "ln -s a b",
    ] {
        assert_eq!(class(src), Class::WritePreserving, "{src}");
    }
    for src in [
        "cp a b",
        "mv a b",
        "tee f",
        "echo x > f",
        "sed -i s/a/b/ f",
        "git checkout -- f",
        "cargo fmt",
        "ln -sf a b",
    ] {
        assert_eq!(class(src), Class::Write, "{src}");
    }
    for src in ["chmod 600 f", "chown me f", "sudo ls"] {
        assert_eq!(class(src), Class::Privilege, "{src}");
    }
    for src in [
        "curl https://x",
        "wget x",
        "ssh host",
        "git push",
        "npm install",
        "pip install x",
        "cargo add serde",
        "scp a h:b",
    ] {
        assert_eq!(class(src), Class::Network, "{src}");
    }
    for src in [
        "rm -rf build",
        "shred f",
        "find . -delete",
        "git clean -fdx",
        "dd if=/dev/zero of=x",
        "git reset --hard",
    ] {
        assert_eq!(class(src), Class::Destructive, "{src}");
    }
}

#[test]
fn a_program_words_file_name_is_what_follows_its_last_slash() {
    use super::invocation::file_name;
    for (text, name) in [
        ("/usr/bin/env", Some("env")),
        ("rm", Some("rm")),
        ("./tools/deploy.sh", Some("deploy.sh")),
        ("dir/é/ünïcode", Some("ünïcode")),
        ("/bin/", None),
        ("/", None),
        ("", None),
        ("//rm", Some("rm")),
    ] {
        assert_eq!(file_name(text), name, "{text:?}");
    }
}
