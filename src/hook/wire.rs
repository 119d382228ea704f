//! The lenient field readers of the providers' payload types (`claude::Payload`,
//! `cursor::Payload`): serde views borrowed from the payload as parsed. A field of another JSON
//! type than the one read (`"tool_input": 5`, `"session_id": 7`) reads as absent, never as an
//! error, so that an odd or a newer payload is still mapped, decided on and answered — and the
//! record keeps it as it came. An event the provider's enum does not name is its
//! `#[serde(other)]` variant, with its name kept.

use serde::de::{value::BorrowedStrDeserializer, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// A JSON value as a lenient field sees it.
#[derive(Clone, Copy)]
enum Scalar<'de> {
    Str(&'de str),
    Bool(bool),
    Int(i64),
    /// Anything else (a float, null, an array, an object), or a string not borrowed from the
    /// payload (only a reader other than a parsed `Value` yields one).
    Other,
}

struct AnyValue;

impl<'de> Visitor<'de> for AnyValue {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(s))
    }
    fn visit_str<E>(self, _: &str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Int(n))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Scalar<'de>, E> {
        Ok(i64::try_from(n).map_or(Scalar::Other, Scalar::Int))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_none<E>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Scalar<'de>, D::Error> {
        d.deserialize_any(self)
    }
    // A parsed payload's array or object is skipped without being walked (`IgnoredAny` on a
    // `&Value` looks no further).
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Scalar<'de>, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Scalar<'de>, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

/// A string field, empty or not; `None` for any other JSON type.
pub(crate) fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de str>, D::Error> {
    Ok(match d.deserialize_any(AnyValue)? {
        Scalar::Str(s) => Some(s),
        _ => None,
    })
}

/// A boolean field; `None` for any other JSON type.
pub(crate) fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match d.deserialize_any(AnyValue)? {
        Scalar::Bool(b) => Some(b),
        _ => None,
    })
}

/// An integer field (one an `i64` holds); `None` for any other JSON value.
pub(crate) fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(match d.deserialize_any(AnyValue)? {
        Scalar::Int(n) => Some(n),
        _ => None,
    })
}

/// The visits of a lenient visitor for the JSON values it does not read: each gives `$none`.
macro_rules! not_read {
    ($t:ty, $none:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<$t, E> {
            Ok($none)
        }
        fn visit_i64<E>(self, _: i64) -> Result<$t, E> {
            Ok($none)
        }
        fn visit_u64<E>(self, _: u64) -> Result<$t, E> {
            Ok($none)
        }
        fn visit_f64<E>(self, _: f64) -> Result<$t, E> {
            Ok($none)
        }
        fn visit_str<E>(self, _: &str) -> Result<$t, E> {
            Ok($none)
        }
        fn visit_unit<E>(self) -> Result<$t, E> {
            Ok($none)
        }
        fn visit_none<E>(self) -> Result<$t, E> {
            Ok($none)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<$t, D::Error> {
            d.deserialize_any(self)
        }
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
    };
}

/// An array's first element when it is a string (Cursor's `workspace_roots`); `None` otherwise.
pub(crate) fn first_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de str>, D::Error> {
    struct First;
    impl<'de> Visitor<'de> for First {
        type Value = Option<&'de str>;
        not_read!(Option<&'de str>, None);
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Option<&'de str>, A::Error> {
            let first = match a.next_element_seed(Lenient(AnyValue))? {
                Some(Scalar::Str(s)) => Some(s),
                _ => None,
            };
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok(first)
        }
        fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Option<&'de str>, A::Error> {
            AnyValue.visit_map(a).map(|_| None)
        }
    }
    d.deserialize_any(First)
}

/// A visitor as a seed, for an element of an array.
struct Lenient<V>(V);

impl<'de, V: Visitor<'de>> serde::de::DeserializeSeed<'de> for Lenient<V> {
    type Value = V::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        d.deserialize_any(self.0)
    }
}

/// Reads an object as `T`, and anything else as `T::default()`.
struct Object<T>(std::marker::PhantomData<T>);

impl<T> Object<T> {
    fn new() -> Self {
        Object(std::marker::PhantomData)
    }
}

impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for Object<T> {
    type Value = T;
    not_read!(T, T::default());
    fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<T, A::Error> {
        T::deserialize(serde::de::value::MapAccessDeserializer::new(a))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, a: A) -> Result<T, A::Error> {
        AnyValue.visit_seq(a).map(|_| T::default())
    }
}

/// A nested object read as `T` (each of its fields lenient too); `T::default()` when the field
/// holds anything but an object.
pub(crate) fn object<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    d.deserialize_any(Object::new())
}

/// An array of objects, each read as `T` (an element that is no object as `T::default()`); empty
/// when the field holds anything but an array.
pub(crate) fn objects<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    struct List<T>(std::marker::PhantomData<T>);
    impl<'de, T: Deserialize<'de> + Default> Visitor<'de> for List<T> {
        type Value = Vec<T>;
        not_read!(Vec<T>, Vec::new());
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(item) = a.next_element_seed(Lenient(Object::<T>::new()))? {
                out.push(item);
            }
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Vec<T>, A::Error> {
            AnyValue.visit_map(a).map(|_| Vec::new())
        }
    }
    d.deserialize_any(List(std::marker::PhantomData))
}

/// A payload's event: the name it was sent under, and what the provider's event enum makes of
/// it (its `#[serde(other)]` variant for a name it does not know, and for no name at all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Named<'v, E> {
    pub name: Option<&'v str>,
    pub event: E,
}

impl<E: Copy> Named<'_, E> {
    /// The event a name stands for (a response is rendered for the name the payload gave).
    pub(crate) fn parse<'de>(name: &'de str) -> E
    where
        E: Deserialize<'de> + Default,
    {
        E::deserialize(BorrowedStrDeserializer::<serde::de::value::Error>::new(name)).unwrap_or_default()
    }
}

/// An event name field; see [`Named`].
pub(crate) fn event<'de, D, E>(d: D) -> Result<Named<'de, E>, D::Error>
where
    D: Deserializer<'de>,
    E: Deserialize<'de> + Default + Copy,
{
    let name = text(d)?;
    Ok(Named {
        name,
        event: name.map(Named::<E>::parse).unwrap_or_default(),
    })
}

/// A provider's payload view of `v`: its type's reading, or (were a parsed object ever refused,
/// which the lenient fields rule out) the empty view, whose event is the unknown one.
pub(crate) fn view<'v, T: Deserialize<'v> + Default>(v: &'v serde_json::Value) -> T {
    T::deserialize(v).unwrap_or_default()
}

/// Whether a field is there at all, whatever it holds (`null` included).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    d.deserialize_any(AnyValue).map(|_| true)
}

/// A text field as the hook uses it: given, and not empty.
pub(crate) fn given(s: Option<&str>) -> Option<&str> {
    s.filter(|s| !s.is_empty())
}

/// [`given`], owned.
pub(crate) fn owned(s: Option<&str>) -> Option<String> {
    given(s).map(str::to_string)
}
