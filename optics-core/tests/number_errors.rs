//! A number serde_json calls invalid is reported where serde_json reports
//! it: the validator's offset is serde_json's column less one (the
//! documents are one line).

use optics_core::json::scan::validate;

#[test]
fn invalid_numbers_are_named_where_serde_json_names_them() {
    for doc in [
        "01",
        "-01",
        "00",
        "-00",
        "[01]",
        "[0,-00]",
        r#"{"a":01}"#,
        r#"{"a":[1,2,007]}"#,
        "01.5",
        "00e1",
        "-0.5e01",
        "[-]",
        "[1.]",
        "[1.e1]",
        "[1e]",
        "[1e+]",
        "[-x]",
        "[0x1]",
        "[.5]",
        "[+1]",
        "[1 01]",
        " 0 ",
    ] {
        let ours = validate(doc.as_bytes());
        let theirs = serde_json::from_str::<serde_json::Value>(doc);
        match (ours, theirs) {
            (Ok(()), Ok(_)) => {}
            (Err(ours), Err(theirs)) => {
                assert_eq!(ours.offset + 1, theirs.column(), "{doc}: {ours} / {theirs}");
                let number = theirs.to_string().starts_with("invalid number");
                assert_eq!(
                    ours.what == "invalid number",
                    number,
                    "{doc}: {ours} / {theirs}"
                );
            }
            (ours, theirs) => panic!("{doc}: {ours:?} / {theirs:?}"),
        }
    }
}
