//! The module's own JSON reader (`metadata::json::read`) against serde_json's, which it replaced
//! in the wasm build (issue 33: serde's deserialization machinery was about 47 KB of its code).
//! Every metadata document and reference file of the fixtures, then texts made to reach every
//! corner of the grammar (numbers of every shape and length, escapes and surrogates, control
//! characters and broken UTF-8, nesting at the depth limit) and those texts and the fixtures
//! mutated byte by byte: where a text has none of Python's bare `NaN`/`Infinity` tokens, both
//! readers must agree exactly (the same value, each number of the same kind and bits, or both an
//! error); where it has them, ours reads what serde_json reads of the text with them quoted, the
//! way the module read such documents before.
//!
//! `FUZZ_ITERS` (default 20000) and `FUZZ_SEED` set the generated round's size and seed.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{fixture_path, Rng};
use serde_json::Value;
use std::path::Path;
use zarr_wasm::metadata::json::{quote_non_finite, read, read_strict};

/// A value's exact text: numbers print by kind (`1` for an integer, `1.0` for a double) and
/// doubles shortest-roundtrip, so equal texts mean equal kinds and bits (-0.0 included).
fn exact(v: &Value) -> String {
    serde_json::to_string(v).unwrap()
}

/// Checks the two readers on `text`; returns whether ours read it.
fn agree(text: &[u8]) -> bool {
    let ours = read(text);
    let theirs = serde_json::from_slice::<Value>(text);
    // The strict reader is serde_json's exactly, tokens or not.
    let strict = read_strict(text);
    assert_eq!(
        strict.as_ref().map(exact).ok(),
        theirs.as_ref().map(exact).ok(),
        "strictly, {}",
        shown(text)
    );
    match quote_non_finite(text) {
        None => match (&ours, &theirs) {
            (Ok(a), Ok(b)) => assert_eq!(exact(a), exact(b), "{}", shown(text)),
            (Err(_), Err(_)) => {}
            _ => panic!(
                "ours {:?}, serde_json {:?}, on {}",
                ours.as_ref().map(exact),
                theirs.as_ref().map(exact).map_err(|e| e.to_string()),
                shown(text)
            ),
        },
        // Python's tokens: what serde_json reads with them quoted (a key spelled as a bare token
        // is refused by ours, as JSON refuses it; serde_json read it quoted).
        Some(quoted) => {
            if let Ok(a) = &ours {
                let b = serde_json::from_slice::<Value>(&quoted)
                    .unwrap_or_else(|e| panic!("ours read {} but quoted it is {e}", shown(text)));
                assert_eq!(exact(a), exact(&b), "{}", shown(text));
            }
        }
    }
    ours.is_ok()
}

fn shown(text: &[u8]) -> String {
    format!(
        "{:?}",
        String::from_utf8_lossy(&text[..text.len().min(300)])
    )
}

/// Every JSON document of the fixtures: metadata, consolidated metadata, reference files.
fn documents(dir: &Path, out: &mut Vec<Vec<u8>>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            documents(&path, out);
        } else if name.ends_with(".json")
            || [
                ".zarray",
                ".zattrs",
                ".zgroup",
                ".zmetadata",
                "meta",
                "attrs",
            ]
            .contains(&&*name)
        {
            out.push(std::fs::read(&path).unwrap());
        }
    }
}

#[test]
fn every_fixture_document_reads_as_serde_json_reads_it() {
    let mut docs = Vec::new();
    documents(&fixture_path(""), &mut docs);
    assert!(docs.len() > 300, "{} documents", docs.len());
    let read_ok = docs.iter().filter(|d| agree(d)).count();
    // Fixtures of corrupt metadata are not JSON on purpose; nearly all others are.
    assert!(read_ok > docs.len() * 9 / 10, "{read_ok} of {}", docs.len());
}

/// A piece of JSON-like text: mostly valid, sometimes a near miss.
fn piece(rng: &mut Rng, depth: usize, out: &mut Vec<u8>) {
    let pick = |rng: &mut Rng, items: &[&str]| items[rng.below(items.len())].to_string();
    match rng.below(if depth > 5 { 4 } else { 8 }) {
        0 => out.extend(number(rng).as_bytes()),
        1 => out.extend(string(rng)),
        2 => out.extend(
            pick(
                rng,
                &[
                    "true",
                    "false",
                    "null",
                    "NaN",
                    "-Infinity",
                    "Infinity",
                    "tru",
                    "nul",
                    "nan",
                    "+1",
                    ".5",
                    "-",
                    "1.",
                    "1e",
                    "01",
                    "-01",
                    "1.e3",
                    "0x1",
                ],
            )
            .as_bytes(),
        ),
        3 => out.extend(pick(rng, &[" ", "\n", "\t", "\r", "", "\u{a0}", "\x0b"]).as_bytes()),
        4 | 5 => {
            out.push(b'[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.extend(pick(rng, &[",", ",", ",", ", ", "", ",,"]).as_bytes());
                }
                piece(rng, depth + 1, out);
            }
            out.extend(pick(rng, &["]", "]", "]", ",]", ""]).as_bytes());
        }
        _ => {
            out.push(b'{');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.extend(pick(rng, &[",", ",", ", ", ""]).as_bytes());
                }
                // Keys repeat often, to test which value and which place a repeated key keeps.
                let key = ["\"a\"", "\"b\"", "\"a\"", "\"\\u0061\"", "a", "1", "NaN"];
                out.extend(pick(rng, &key).as_bytes());
                out.extend(pick(rng, &[":", ": ", " :", ""]).as_bytes());
                piece(rng, depth + 1, out);
            }
            out.extend(pick(rng, &["}", "}", "}", ",}", ""]).as_bytes());
        }
    }
}

/// From 1 to `most` decimal digits.
fn digits(rng: &mut Rng, most: usize) -> String {
    let n = 1 + rng.below(most);
    (0..n)
        .map(|_| char::from(b'0' + rng.below(10) as u8))
        .collect()
}

/// Numbers of every shape: integers at and past the u64 and i64 limits, long mantissas whose
/// nearest double is decided by the last digits, exponents at and past the double's range.
fn number(rng: &mut Rng) -> String {
    let sign = if rng.below(2) == 0 { "-" } else { "" };
    match rng.below(9) {
        0 => format!("{sign}{}", rng.next() >> rng.below(64)),
        1 => format!(
            "{sign}{}",
            [
                "18446744073709551615",
                "18446744073709551616",
                "9223372036854775808",
                "9223372036854775807",
                "9223372036854775809",
                "0",
                "00"
            ][rng.below(7)]
        ),
        2 => format!("{sign}{}.{}", rng.below(1000), digits(rng, 30)),
        3 => format!(
            "{sign}{}e{}{}",
            1 + rng.below(9),
            ["", "+", "-"][rng.below(3)],
            rng.below(400)
        ),
        // Halfway cases and their neighbours: 2^53 + 1 and friends, written long.
        4 => format!(
            "{sign}{}{}",
            9007199254740993u64 + rng.below(8) as u64,
            [".0", "", ".5", ".4999999999999999999999", "e0"][rng.below(5)]
        ),
        5 => {
            let (int, frac) = (digits(rng, 25), digits(rng, 25));
            format!("{sign}{int}.{frac}e{}", rng.below(640) as i64 - 330)
        }
        6 => format!("{sign}{}", digits(rng, 400)),
        7 => format!("{sign}2.2250738585072011e-308"),
        _ => format!(
            "{sign}1.7976931348623158e308{}",
            ["", "1", "9"][rng.below(3)]
        ),
    }
}

/// Strings with every escape, paired and lone surrogates, raw non-ASCII, control characters and
/// broken UTF-8.
fn string(rng: &mut Rng) -> Vec<u8> {
    let parts: [&[u8]; 22] = [
        b"abc",
        b"\\\"",
        b"\\\\",
        b"\\/",
        b"\\b\\f\\n\\r\\t",
        b"\\u00e9",
        b"\\u0000",
        b"\\uD83D\\uDE00",
        b"\\uD83D",
        b"\\uDE00",
        b"\\uD83Dx",
        b"\\uD83D\\u0041",
        b"\\uZZZZ",
        b"\\u12",
        b"\\x",
        "é漢😀".as_bytes(),
        b"\x01",
        b"\x1f",
        b"\x7f",
        b"\xff",
        b"\xe6\xbc",
        b"\xed\xa0\x80",
    ];
    let mut s = vec![b'"'];
    for _ in 0..rng.below(5) {
        s.extend(parts[rng.below(parts.len())]);
    }
    if rng.below(20) > 0 {
        s.push(b'"');
    }
    s
}

/// Changes a few bytes of `text`: flips, deletions, insertions of JSON's punctuation, a cut.
fn mutate(rng: &mut Rng, text: &mut Vec<u8>) {
    for _ in 0..1 + rng.below(3) {
        if text.is_empty() {
            return;
        }
        let at = rng.below(text.len());
        match rng.below(5) {
            0 => text[at] = rng.next() as u8,
            1 => {
                text.remove(at);
            }
            2 => {
                let punct = b"[]{}\",:\\-.e0 ";
                text.insert(at, punct[rng.below(punct.len())])
            }
            3 => text.truncate(at),
            _ => text[at] ^= 1 << rng.below(8),
        }
    }
}

#[test]
fn generated_and_mutated_texts_read_as_serde_json_reads_them() {
    let (iterations, seed) = common::fuzz_settings(20_000, 20261127);
    let mut rng = Rng(seed);
    let mut docs = Vec::new();
    documents(&fixture_path(""), &mut docs);
    let (mut read_ok, mut refused) = (0, 0);
    for i in 0..iterations {
        let mut text = Vec::new();
        if i % 2 == 0 {
            piece(&mut rng, 0, &mut text);
        } else {
            text = docs[rng.below(docs.len())].clone();
            mutate(&mut rng, &mut text);
        }
        if agree(&text) {
            read_ok += 1;
        } else {
            refused += 1;
        }
    }
    eprintln!("{read_ok} read, {refused} refused");
    // Both kinds of text are common: the round tests reading and refusing alike.
    assert!(
        read_ok > iterations / 10 && refused > iterations / 10,
        "{read_ok} read, {refused} refused"
    );
}

#[test]
fn nesting_is_read_to_serde_jsons_depth_and_refused_past_it() {
    for depth in [1, 126, 127, 128, 129, 100_000] {
        for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
            let text = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            let read_ok = agree(text.as_bytes());
            assert_eq!(read_ok, depth <= 127, "depth {depth} of {open}");
        }
    }
}

#[test]
fn errors_say_what_and_where() {
    let err = read(b"{\n  \"a\": [1,\n  2 x]\n}").unwrap_err().to_string();
    assert_eq!(err, "expected `,` or `]` at line 3 column 4");
    let err = read(b"[1e999]").unwrap_err().to_string();
    assert!(err.starts_with("number out of range"), "{err}");
    let err = read(b"\"\\uD800\"").unwrap_err().to_string();
    assert!(err.starts_with("lone leading surrogate"), "{err}");
}
