//! The framework used from its docs alone, on a model unlike the repo's:
//! an order service. Every read and write is held to serde_json, on the
//! value and on the bytes.

use std::collections::HashMap;

use optics_core::json::{Duplicates, Strict};
use optics_core::prelude::*;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

#[path = "support/scale.rs"]
mod scale;

#[global_allocator]
static GLOBAL: alloc_counter::Counting = alloc_counter::Counting;

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Order<'a> {
    order_id: u128,
    balance_cents: i128,
    status: Status,
    shipping: Shipping,
    line_items: Vec<LineItem>,
    address: Option<Address>,
    counters: HashMap<String, u32>,
    #[serde(default)]
    priority: u8,
    #[serde(rename = "memo")]
    note: Box<Note>,
    discount: f32,
    grade: char,
    #[serde(borrow)]
    channel: &'a str,
}

/// serde's default representation: externally tagged.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Status {
    Pending,
    Held(String),
    Shipped { carrier: String, tracking: u64 },
}

/// Adjacently tagged.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
enum Shipping {
    Pickup,
    Courier(Courier),
    Freight { weight: f32, pallets: u32 },
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Courier {
    company_name: String,
    express: bool,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct LineItem {
    sku: String,
    quantity: u32,
    unit_price: f64,
    #[serde(default)]
    gift: bool,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Address {
    street_line: String,
    city: String,
    zip_code: Option<String>,
}

/// Recursive, through a `Box`.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Note {
    text: String,
    reply: Option<Box<Note>>,
}

fn order(n: u32) -> Order<'static> {
    let status = match n % 3 {
        0 => Status::Pending,
        1 => Status::Held(format!("fraud check {n}")),
        _ => Status::Shipped {
            carrier: "ups".to_owned(),
            tracking: 1_000_000 + u64::from(n),
        },
    };
    let shipping = match n % 3 {
        0 => Shipping::Courier(Courier {
            company_name: "Fast \"Bikes\"".to_owned(),
            express: n.is_multiple_of(2),
        }),
        1 => Shipping::Freight {
            weight: 12.5,
            pallets: n,
        },
        _ => Shipping::Pickup,
    };
    Order {
        order_id: u128::MAX - u128::from(n),
        balance_cents: i128::MIN + i128::from(n) * 7_000_000_000_000_000_000_000_000_000_000_000,
        status,
        shipping,
        line_items: (0..n % 4)
            .map(|i| LineItem {
                sku: format!("SKU-{i}\u{e9}"),
                quantity: i + 1,
                unit_price: 9.99 * f64::from(i + 1),
                gift: i == 1,
            })
            .collect(),
        address: (n % 2 == 1).then(|| Address {
            street_line: "1 Main St".to_owned(),
            city: "Z\u{fc}rich".to_owned(),
            zip_code: (n % 4 == 1).then(|| "8001".to_owned()),
        }),
        counters: HashMap::from([("views".to_owned(), n), ("edits".to_owned(), 2)]),
        priority: (n % 5) as u8,
        note: Box::new(Note {
            text: "first".to_owned(),
            reply: Some(Box::new(Note {
                text: format!("reply {n}"),
                reply: None,
            })),
        }),
        discount: 0.1 * n as f32,
        grade: ['A', '\u{e9}', '\u{1F600}'][n as usize % 3],
        channel: "web",
    }
}

fn orders() -> Vec<Order<'static>> {
    (0..12).map(order).collect()
}

fn decode(bytes: &[u8]) -> Order<'_> {
    serde_json::from_slice(bytes).expect("serde_json decodes the order")
}

#[test]
fn every_leaf_reads_the_same_from_bytes_and_value() {
    for order in orders() {
        let bytes = serde_json::to_vec(&order).unwrap();
        assert_eq!(decode(&bytes), order);
        check_reads(&bytes);
        let pretty = serde_json::to_vec_pretty(&order).unwrap();
        check_reads(&pretty);
    }
}

/// Every path below reads from `bytes` what it previews in serde_json's
/// decode of them.
fn check_reads(bytes: &[u8]) {
    {
        let json = Json::<Order>::new(bytes);
        let value = decode(bytes);

        assert_eq!(
            json.read(Order::order_id),
            Some(*Order::order_id.get(&value))
        );
        assert_eq!(json.read(Order::balance_cents), Some(value.balance_cents));
        assert_eq!(json.read(Order::status), Some(value.status.clone()));
        assert_eq!(json.read(Order::shipping), Some(value.shipping.clone()));
        assert_eq!(json.read(Order::line_items), Some(value.line_items.clone()));
        assert_eq!(json.read(Order::address), Some(value.address.clone()));
        assert_eq!(json.read(Order::counters), Some(value.counters.clone()));
        assert_eq!(json.read(Order::priority), Some(value.priority));
        assert_eq!(json.read(Order::note), Some(value.note.clone()));
        assert_eq!(json.read(Order::discount), Some(value.discount));
        assert_eq!(json.read(Order::grade), Some(value.grade));
        assert_eq!(json.read(Order::channel), Some(value.channel));

        // Variants: prisms and the optionals of struct variants.
        assert_eq!(
            json.read(Order::status.then(Status::held)),
            Order::status.then(Status::held).preview(&value).cloned()
        );
        assert_eq!(
            json.read(Order::status.then(Status::pending)),
            Order::status.then(Status::pending).preview(&value).cloned()
        );
        let tracking = Order::status.then(Status::shipped_tracking);
        assert_eq!(json.read(tracking), tracking.preview(&value).copied());
        let carrier = Order::status.then(Status::shipped_carrier);
        assert_eq!(json.read(carrier), carrier.preview(&value).cloned());
        assert_eq!(
            json.read(Order::status.then(Status::kind)),
            Some(*Status::kind.get(&value.status))
        );

        let company = Order::shipping
            .then(Shipping::courier)
            .then(Courier::company_name);
        assert_eq!(json.read(company), company.preview(&value).cloned());
        let pallets = Order::shipping.then(Shipping::freight_pallets);
        assert_eq!(json.read(pallets), pallets.preview(&value).copied());
        let weight = Order::shipping.then(Shipping::freight_weight);
        assert_eq!(json.read(weight), weight.preview(&value).copied());
        let pickup = Order::shipping.then(Shipping::pickup);
        assert_eq!(json.read(pickup), pickup.preview(&value).copied());
        assert_eq!(
            json.read(Order::shipping.then(Shipping::kind)),
            Some(*Shipping::kind.get(&value.shipping))
        );

        // Option, Box, recursion.
        let city = Order::address.then(some()).then(Address::city);
        assert_eq!(json.read(city), city.preview(&value).cloned());
        let zip = Order::address
            .then(some())
            .then(Address::zip_code)
            .then(some());
        assert_eq!(json.read(zip), zip.preview(&value).cloned());
        let reply = Order::note.then(Note::reply).then(some()).then(Note::text);
        assert_eq!(json.read(reply), reply.preview(&value).cloned());
        let deeper = Order::note
            .then(Note::reply)
            .then(some())
            .then(Note::reply)
            .then(some())
            .then(Note::text);
        assert_eq!(json.read(deeper), deeper.preview(&value).cloned());

        // Lists and maps.
        for i in 0..5 {
            let sku = Order::line_items.then(at(i)).then(LineItem::sku);
            assert_eq!(json.read(sku), sku.preview(&value).cloned());
            let price = Order::line_items.then(at(i)).then(LineItem::unit_price);
            assert_eq!(json.read(price), price.preview(&value).copied());
        }
        for k in ["views", "edits", "missing"] {
            let counter = Order::counters.then(key(k));
            assert_eq!(json.read(counter), counter.preview(&value).copied(), "{k}");
        }

        // Entered fields: several reads under one field, each as the
        // composed path reads.
        let shipping = json.enter(Order::shipping).unwrap();
        assert_eq!(
            shipping.read(Shipping::kind),
            json.read(Order::shipping.then(Shipping::kind))
        );
        assert_eq!(
            shipping.read(Shipping::courier.then(Courier::company_name)),
            company.preview(&value).cloned()
        );
        assert_eq!(
            shipping.read(Shipping::freight_pallets),
            pallets.preview(&value).copied()
        );
        assert_eq!(
            shipping.read(Shipping::pickup),
            pickup.preview(&value).copied()
        );
        let whole: Shipping = serde_json::from_slice(shipping.json().unwrap().bytes()).unwrap();
        assert_eq!(whole, value.shipping);
        let note = json.enter(Order::note).unwrap();
        let reply_text = Note::reply.then(some()).then(Note::text);
        assert_eq!(note.read(reply_text), reply.preview(&value).cloned());
        assert_eq!(note.read(Note::text), Some(value.note.text.clone()));
        let address = json.enter(Order::address.then(some()));
        assert_eq!(address.is_some(), value.address.is_some());
        if let Some(address) = address {
            assert_eq!(address.read(Address::city), city.preview(&value).cloned());
            let zip_code = Address::zip_code.then(some());
            assert_eq!(address.read(zip_code), zip.preview(&value).cloned());
        }
        let status = json.enter(Order::status).unwrap();
        assert_eq!(
            status.read(Status::shipped_tracking),
            tracking.preview(&value).copied()
        );
        assert_eq!(
            status.read(Status::held),
            Status::held.preview(&value.status).cloned()
        );

        // The borrowed leaf points into the message.
        let channel: &str = json.read(Order::channel).unwrap();
        assert!(bytes.as_ptr_range().contains(&channel.as_ptr()));

        // The same through the reader capability.
        fn views<'x>(order: impl Reader<Order<'x>>) -> Option<u32> {
            order.read(Order::counters.then(key("views")))
        }
        assert_eq!(views(&value), views(json));
    }
}

/// Orders as another writer might send them: members in another order,
/// whitespace, escapes, a defaulted field left out, the adjacent content
/// before its tag.
const HAND_WRITTEN: &[&str] = &[
    r#"{"orderId":340282366920938463463374607431768211455,"balanceCents":-170141183460469231731687303715884105728,"status":"Pending","shipping":{"kind":"pickup"},"lineItems":[],"address":null,"counters":{},"memo":{"text":"","reply":null},"discount":0,"grade":"x","channel":"app"}"#,
    r#"{ "channel" : "app" , "grade" : "\u00e9", "discount" : 1e-1, "memo" : { "reply" : { "reply" : null, "text" : "b\"q\"" }, "text" : "a" },
        "counters" : { "views" : 3, "edits" : 4, "views" : 5 }, "address" : { "zipCode" : "1\u0030", "city" : "Bern", "streetLine" : "x" },
        "lineItems" : [ { "unitPrice" : 1.5E2, "quantity" : 2, "sku" : "A\/B" }, { "sku" : "C", "gift" : true, "quantity" : 0, "unitPrice" : -0.0 } ],
        "shipping" : { "data" : { "express" : false, "companyName" : "DHL" }, "kind" : "courier" },
        "status" : { "Shipped" : { "tracking" : 18446744073709551615, "carrier" : "fedex" } }, "order\u0049d" : 0, "priority" : 9, "balanceCents" : -0 }"#,
    r#"{"orderId":1,"balanceCents":170141183460469231731687303715884105727,"status":{"Held":"why \ud83d\ude00"},"shipping":{"kind":"freight","data":{"pallets":3,"weight":2.5e0}},"lineItems":[{"sku":"s","quantity":1,"unitPrice":0.1}],"address":{"streetLine":"s","city":"c"},"counters":{"edits":1},"memo":{"text":"t","reply":{"text":"u","reply":{"text":"v","reply":null}}},"discount":3.4028235e38,"grade":"\ud83d\ude00","channel":"b2b"}"#,
    r#"{"orderId":2,"balanceCents":0,"status":{"Shipped":{"carrier":"x","tracking":0}},"shipping":{"data":{"weight":1,"pallets":0},"kind":"freight"},"lineItems":[],"address":null,"counters":{"views":7},"memo":{"text":"t","reply":null},"discount":-1.5,"grade":" ","channel":"","priority":255}"#,
];

/// Forms serde accepts beside the ones it writes: structs and struct
/// variants as arrays, an adjacent enum as `[tag, content]` or with its tag
/// as `{"Variant":null}`, escaped map keys, unknown members.
const OTHER_FORMS: &[&str] = &[
    r#"{"orderId":3,"balanceCents":-3,"status":{"Shipped":["ups",9]},"shipping":["courier",["DHL",true]],"lineItems":[["a",1,2.5,true],["b",2,0.5]],"address":["x","y",null],"counters":{"vi\u0065ws":4,"\u0065dits":5},"memo":["t",["u",null]],"discount":0.5,"grade":"g","channel":"c","extra":{"orderId":9,"channel":"no"}}"#,
    r#"{"orderId":4,"balanceCents":4,"status":"Pending","shipping":{"kind":{"freight":null},"data":{"weight":1.5,"pallets":2}},"lineItems":[],"address":{"streetLine":"s","city":"c","zipCode":null,"country":"ch"},"counters":{},"memo":{"text":"t","reply":null,"unknown":[1,2,{"text":"no"}]},"discount":1,"grade":"g","channel":"c"}"#,
    r#"{"orderId":5,"balanceCents":5,"status":{"Held":"h"},"shipping":{"data":null,"kind":"pickup"},"lineItems":[{"sku":"s","quantity":1,"unitPrice":1,"gift":false,"note":"x"}],"address":null,"counters":{"views":1},"memo":{"text":"t","reply":null},"discount":1,"grade":"g","channel":"c"}"#,
    r#"{"orderId":6,"balanceCents":6,"status":{"Shipped":{"carrier":"c","tracking":1}},"shipping":{"kind":"courier","data":{"companyName":"A","express":true}},"lineItems":[],"address":null,"counters":{},"memo":{"text":"t","reply":null},"discount":1,"grade":"g","channel":"c"}"#,
];

#[test]
fn hand_written_orders_read_as_serde_json_decodes_them() {
    for text in HAND_WRITTEN.iter().chain(OTHER_FORMS) {
        check_reads(text.as_bytes());
    }
}

#[test]
fn other_forms_write_or_refuse() {
    // The first holds the array forms, where writes may refuse; the others
    // are objects, written as the value is.
    REFUSALS_ALLOWED.set(true);
    check_writes(OTHER_FORMS[0].as_bytes());
    REFUSALS_ALLOWED.set(false);
    for text in &OTHER_FORMS[1..] {
        check_writes(text.as_bytes());
    }
}

optic! {
    /// How often an order was viewed.
    optional VIEWS: Order<'static> => u32 = Order::counters.then(key("views"));
}

optic! {
    /// The courier's company of an order shipped by courier.
    optional COURIER_NAME: Order<'static> => String =
        Order::shipping.then(Shipping::courier).then(Courier::company_name);
}

optic! {
    /// An order's line items.
    lens ITEMS: Order<'static> => Vec<LineItem> = Order::line_items;
}

#[test]
fn named_paths_read_as_the_paths_they_name() {
    let mut texts: Vec<Vec<u8>> = orders()
        .iter()
        .map(|o| serde_json::to_vec(o).unwrap())
        .collect();
    texts.extend(HAND_WRITTEN.iter().map(|t| t.as_bytes().to_vec()));
    for bytes in &texts {
        let value: Order<'static> = serde_json::from_slice::<Order>(bytes)
            .map(|o| Order {
                channel: "",
                ..o.clone()
            })
            .unwrap();
        let json = Json::<Order<'static>>::new(bytes);
        assert_eq!(json.read(VIEWS), VIEWS.preview(&value).copied());
        assert_eq!(
            json.read(COURIER_NAME),
            COURIER_NAME.preview(&value).cloned()
        );
        assert_eq!(json.read(ITEMS).as_ref(), Some(ITEMS.get(&value)));
        let skus = ITEMS.then(each()).then(LineItem::sku);
        let on_value: Vec<String> = skus.iter(&value).cloned().collect();
        let on_bytes: Option<Vec<String>> = json.read_each(skus).collect();
        assert_eq!(on_bytes, Some(on_value));

        // A name writes bytes as the first step of a path.
        let first_quantity = ITEMS.then(at(0)).then(LineItem::quantity);
        let mut written = value.clone();
        let had_one = first_quantity.modify(&mut written, |q| *q = 5);
        match json.set(first_quantity, &5) {
            Some(patched) => {
                assert!(had_one);
                let decoded = decode(&patched);
                assert_eq!(decoded.line_items, written.line_items);
            }
            None => assert!(!had_one),
        }
        let gifts = ITEMS.then(each()).then(LineItem::gift);
        let patched = json.set_all(gifts, &true).unwrap();
        gifts.set_all(&mut written, true);
        assert!(decode(&patched).line_items.iter().all(|item| item.gift));
    }
}

#[test]
fn each_visits_line_items_and_counters_on_values_and_bytes() {
    let mut texts: Vec<Vec<u8>> = orders()
        .iter()
        .map(|o| serde_json::to_vec(o).unwrap())
        .collect();
    texts.extend(HAND_WRITTEN.iter().map(|t| t.as_bytes().to_vec()));
    for bytes in &texts {
        let value = decode(bytes);
        let json = Json::<Order>::new(bytes);

        let quantities = Order::line_items.then(each()).then(LineItem::quantity);
        let on_value: Vec<u32> = quantities.iter(&value).copied().collect();
        let on_bytes: Option<Vec<u32>> = json.read_each(quantities).collect();
        assert_eq!(on_bytes, Some(on_value.clone()));
        assert_eq!(
            quantities.fold(&value, 0, |n, q| n + q),
            on_value.iter().sum::<u32>()
        );

        // A missing defaulted field is read as serde fills it in.
        let gifts = Order::line_items.then(each()).then(LineItem::gift);
        let on_value: Vec<bool> = gifts.iter(&value).copied().collect();
        let on_bytes: Option<Vec<bool>> = json.read_each(gifts).collect();
        assert_eq!(on_bytes, Some(on_value));

        // Each view is one line item's own JSON.
        let items: Vec<LineItem> = json
            .iter(Order::line_items.then(each()))
            .map(|item| serde_json::from_slice(item.bytes()).unwrap())
            .collect();
        assert_eq!(items, value.line_items);

        // A map's values: in the bytes' order, every member the bytes hold.
        let mut on_value: Vec<u32> = Order::counters
            .then(each())
            .iter(&value)
            .copied()
            .collect::<Vec<u32>>();
        let on_bytes: Option<Vec<u32>> = json.read_each(Order::counters.then(each())).collect();
        let mut on_bytes = on_bytes.unwrap();
        on_value.sort();
        on_bytes.sort();
        if bytes.windows(7).filter(|w| w == br#""views""#).count() < 2 {
            assert_eq!(on_bytes, on_value);
        }
    }
}

#[test]
fn strict_reads_refuse_duplicate_keys_and_malformed_messages() {
    let bytes = serde_json::to_vec(&order(4)).unwrap();
    let views = Order::counters.then(key("views"));
    let city = Order::address.then(some()).then(Address::city);

    let duplicates = Duplicates::new();
    let strict = Strict::<Order>::validated(&bytes, &duplicates).unwrap();
    assert_eq!(strict.read(views), Some(4));
    assert_eq!(strict.read(city), None);
    assert!(!duplicates.met());

    // A struct key given twice on the path: serde_json refuses the order,
    // a strict read refuses the path.
    let twice = br#"{"orderId":1,"balanceCents":1,"address":{"streetLine":"s","city":"a","city":"b"},"status":"Pending","shipping":{"kind":"pickup"},"lineItems":[],"counters":{},"memo":{"text":"t","reply":null},"discount":0,"grade":"g","channel":"c"}"#;
    assert!(serde_json::from_slice::<Order>(twice).is_err());
    let duplicates = Duplicates::new();
    let strict = Strict::<Order>::validated(twice, &duplicates).unwrap();
    assert_eq!(strict.read(city), None);
    assert!(duplicates.met());
    // Where: the second "city", the key a parser taking the last would read.
    let second_city = twice.windows(6).rposition(|w| w == br#""city""#);
    assert_eq!(duplicates.offset_in(twice), second_city);
    duplicates.clear();
    assert_eq!(duplicates.offset_in(twice), None);
    // Trusting, the first is read.
    assert_eq!(Json::<Order>::new(twice).read(city).as_deref(), Some("a"));

    // The same key twice in a map: serde_json keeps the last, so does a
    // strict read, and it is no duplicate.
    let map_twice = br#"{"orderId":1,"balanceCents":1,"address":null,"status":"Pending","shipping":{"kind":"pickup"},"lineItems":[],"counters":{"views":1,"views":2},"memo":{"text":"t","reply":null},"discount":0,"grade":"g","channel":"c"}"#;
    let value = decode(map_twice);
    let duplicates = Duplicates::new();
    let strict = Strict::<Order>::validated(map_twice, &duplicates).unwrap();
    assert_eq!(strict.read(views), views.preview(&value).copied());
    assert!(!duplicates.met());

    // Malformed messages are refused whole.
    for bad in [
        &bytes[..bytes.len() - 1],
        br#"{"orderId":1,}"#,
        br#"{"orderId":01}"#,
        br#"{"orderId":1}x"#,
        b"{\"channel\":\"\xff\"}",
        br#"{"channel":"\ud800"}"#,
        br#"{"discount":1e400}"#,
    ] {
        assert!(serde_json::from_slice::<serde_json::Value>(bad).is_err());
        let duplicates = Duplicates::new();
        assert!(
            Strict::<Order>::validated(bad, &duplicates).is_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
        assert!(Json::<Order>::validated(bad).is_err());
    }

    // The error says what was wrong, at the byte where it is.
    for (bad, said) in [
        (&br#"{"orderId":01}"#[..], "invalid number at byte 12"),
        (br#"{"orderId":-00}"#, "invalid number at byte 13"),
        (br#"[0,00]"#, "invalid number at byte 4"),
        (br#"-01"#, "invalid number at byte 2"),
        (br#"{"orderId":1,}"#, "expected a string key at byte 13"),
        (br#"{"orderId":1}x"#, "trailing characters at byte 13"),
        (br#"{"discount":1e400}"#, "number out of range at byte 12"),
        (br#"{"orderId":1"#, "unexpected end of input at byte 12"),
    ] {
        let error = Json::<Order>::validated(bad).unwrap_err();
        assert_eq!(error.to_string(), said, "{}", String::from_utf8_lossy(bad));
    }
}

/// Every order the tests read: generated ones, compact and pretty, and the
/// hand-written ones.
fn all_texts() -> Vec<Vec<u8>> {
    let mut texts = Vec::new();
    for order in orders() {
        texts.push(serde_json::to_vec(&order).unwrap());
        texts.push(serde_json::to_vec_pretty(&order).unwrap());
    }
    texts.extend(HAND_WRITTEN.iter().map(|t| t.as_bytes().to_vec()));
    texts
}

thread_local! {
    /// Whether a byte write may refuse where the value has a focus: for the
    /// forms the docs say writes refuse (a struct read from an array, an
    /// adjacent enum written as `[tag, content]`).
    static REFUSALS_ALLOWED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Holds a byte write to the same write on the decoded value: where the
/// write has a focus, the new bytes decode to the value written; where it
/// has none, the bytes write refuses and the value is left as it was.
fn check_write<'b>(
    what: &str,
    bytes: &'b [u8],
    on_bytes: impl FnOnce(Json<'b, Order<'b>>) -> Option<Vec<u8>>,
    on_value: impl FnOnce(&mut Order<'b>) -> bool,
) {
    let mut value = decode(bytes);
    let written = on_value(&mut value);
    let patched = on_bytes(Json::new(bytes));
    let text = String::from_utf8_lossy(bytes);
    match patched {
        Some(patched) => {
            assert!(
                written,
                "{what}: bytes written where the value had no focus: {text}"
            );
            let decoded = serde_json::from_slice::<Order>(&patched)
                .unwrap_or_else(|e| panic!("{what}: {e} in {}", String::from_utf8_lossy(&patched)));
            assert_eq!(
                decoded,
                value,
                "{what}: {}",
                String::from_utf8_lossy(&patched)
            );
        }
        None => assert!(
            !written || REFUSALS_ALLOWED.get(),
            "{what}: bytes refused a write the value took: {text}"
        ),
    }
}

#[test]
fn byte_writes_decode_as_the_same_write_on_the_value() {
    for bytes in &all_texts() {
        check_writes(bytes);
    }
}

/// Each write below, on `bytes` and on serde_json's decode of them.
fn check_writes(bytes: &[u8]) {
    {
        let street = Order::address.then(some()).then(Address::street_line);
        let redacted = "REDACTED".to_owned();
        check_write(
            "redact",
            bytes,
            |j| j.set(street, &redacted),
            |v| street.modify(v, |s| *s = redacted.clone()),
        );

        let views = Order::counters.then(key("views"));
        check_write(
            "bump views",
            bytes,
            |j| j.modify(views, |n| n.wrapping_add(1)),
            |v| views.modify(v, |n| *n = n.wrapping_add(1)),
        );
        check_write(
            "balance",
            bytes,
            |j| j.modify(Order::balance_cents, |n| n / -2),
            |v| Order::balance_cents.modify(v, |n| *n /= -2),
        );
        check_write(
            "order id",
            bytes,
            |j| j.modify(Order::order_id, |n| n / 3),
            |v| Order::order_id.modify(v, |n| *n /= 3),
        );
        check_write(
            "priority",
            bytes,
            |j| j.modify(Order::priority, |n| n.wrapping_add(1)),
            |v| Order::priority.modify(v, |n| *n = n.wrapping_add(1)),
        );
        check_write(
            "discount",
            bytes,
            |j| j.set(Order::discount, &0.3),
            |v| Order::discount.modify(v, |d| *d = 0.3),
        );
        check_write(
            "grade",
            bytes,
            |j| j.set(Order::grade, &'\u{1F4E6}'),
            |v| Order::grade.modify(v, |g| *g = '\u{1F4E6}'),
        );
        check_write(
            "channel",
            bytes,
            |j| j.set(Order::channel, &"phone"),
            |v| Order::channel.modify(v, |c| *c = "phone"),
        );

        // Enum variants, whole and through prisms.
        let shipped = Status::Shipped {
            carrier: "dhl".to_owned(),
            tracking: 42,
        };
        check_write(
            "status",
            bytes,
            |j| j.set(Order::status, &shipped),
            |v| Order::status.modify(v, |s| *s = shipped.clone()),
        );
        let held = Order::status.then(Status::held);
        check_write(
            "held",
            bytes,
            |j| j.set(held, &"again".to_owned()),
            |v| held.modify(v, |h| *h = "again".to_owned()),
        );
        let tracking = Order::status.then(Status::shipped_tracking);
        check_write(
            "tracking",
            bytes,
            |j| j.modify(tracking, |t| t / 2),
            |v| tracking.modify(v, |t| *t /= 2),
        );
        let freight = Shipping::Freight {
            weight: 0.5,
            pallets: 1,
        };
        check_write(
            "shipping",
            bytes,
            |j| j.set(Order::shipping, &freight),
            |v| Order::shipping.modify(v, |s| *s = freight.clone()),
        );
        let pickup = Shipping::Pickup;
        check_write(
            "pickup",
            bytes,
            |j| j.set(Order::shipping, &pickup),
            |v| Order::shipping.modify(v, |s| *s = pickup.clone()),
        );
        let express = Order::shipping
            .then(Shipping::courier)
            .then(Courier::express);
        check_write(
            "express",
            bytes,
            |j| j.set(express, &true),
            |v| express.modify(v, |e| *e = true),
        );
        let pallets = Order::shipping.then(Shipping::freight_pallets);
        check_write(
            "pallets",
            bytes,
            |j| j.modify(pallets, |p| p.wrapping_add(10)),
            |v| pallets.modify(v, |p| *p = p.wrapping_add(10)),
        );

        // Options set to `None`.
        check_write(
            "no address",
            bytes,
            |j| j.set(Order::address, &None),
            |v| Order::address.modify(v, |a| *a = None),
        );
        let zip = Order::address.then(some()).then(Address::zip_code);
        check_write(
            "no zip",
            bytes,
            |j| j.set(zip, &None),
            |v| zip.modify(v, |z| *z = None),
        );
        let reply = Order::note.then(Note::reply);
        check_write(
            "no reply",
            bytes,
            |j| j.set(reply, &None),
            |v| reply.modify(v, |r| *r = None),
        );
        let reply_text = reply.then(some()).then(Note::text);
        check_write(
            "reply text",
            bytes,
            |j| j.set(reply_text, &"edited".to_owned()),
            |v| reply_text.modify(v, |t| *t = "edited".to_owned()),
        );

        // Every line item, every counter.
        let quantities = Order::line_items.then(each()).then(LineItem::quantity);
        check_write(
            "quantities",
            bytes,
            |j| j.modify_all(quantities, |q| q.wrapping_mul(2)),
            |v| {
                quantities.modify_all(v, |q| *q = q.wrapping_mul(2));
                true
            },
        );
        let gifts = Order::line_items.then(each()).then(LineItem::gift);
        check_write(
            "gifts",
            bytes,
            |j| j.set_all(gifts, &true),
            |v| {
                gifts.set_all(v, true);
                true
            },
        );
        let prices = Order::line_items.then(each()).then(LineItem::unit_price);
        check_write(
            "prices",
            bytes,
            |j| j.modify_all(prices, |p| p * 1.5),
            |v| {
                prices.modify_all(v, |p| *p *= 1.5);
                true
            },
        );
        let counters = Order::counters.then(each());
        check_write(
            "counters",
            bytes,
            |j| j.set_all(counters, &0),
            |v| {
                counters.set_all(v, 0);
                true
            },
        );
    }
}

/// Runs `read` and returns what it gave and how many allocations it made
/// on this thread.
fn counted<R>(read: impl FnOnce() -> R) -> (R, u64) {
    let (result, counts) = alloc_counter::measure_thread(read);
    (result, counts.allocations)
}

#[test]
fn reads_of_leaves_allocate_nothing() {
    let mut order = order(5);
    order.shipping = Shipping::Freight {
        weight: 12.5,
        pallets: 5,
    };
    order.line_items = self::order(7).line_items;
    let bytes = serde_json::to_vec(&order).unwrap();
    let json = Json::<Order>::new(&bytes);
    let tracking = Order::status.then(Status::shipped_tracking);
    let pallets = Order::shipping.then(Shipping::freight_pallets);
    let weight = Order::shipping.then(Shipping::freight_weight);
    let views = Order::counters.then(key("views"));
    let gift = Order::line_items.then(at(1)).then(LineItem::gift);
    let price = Order::line_items.then(at(0)).then(LineItem::unit_price);

    assert_eq!(
        counted(|| json.read(Order::discount)),
        (Some(order.discount), 0)
    );
    assert_eq!(counted(|| json.read(Order::grade)), (Some(order.grade), 0));
    assert_eq!(counted(|| json.read(Order::channel)), (Some("web"), 0));
    assert_eq!(
        counted(|| json.read(Order::priority)),
        (Some(order.priority), 0)
    );
    assert_eq!(
        counted(|| json.read(Order::status.then(Status::kind))),
        (Some(StatusKind::Shipped), 0)
    );
    assert_eq!(
        counted(|| json.read(Order::shipping.then(Shipping::kind))),
        (Some(ShippingKind::Freight), 0)
    );
    assert_eq!(counted(|| json.read(tracking)), (Some(1_000_005), 0));
    assert_eq!(counted(|| json.read(pallets)), (Some(5), 0));
    assert_eq!(counted(|| json.read(weight)), (Some(12.5), 0));
    assert_eq!(counted(|| json.read(views)), (Some(5), 0));
    assert_eq!(counted(|| json.read(gift)), (Some(true), 0));
    assert_eq!(counted(|| json.read(price)), (Some(9.99), 0));
    assert_eq!(
        counted(|| json.read(Order::order_id)),
        (Some(order.order_id), 0)
    );
    assert_eq!(
        counted(|| json.read(Order::balance_cents)),
        (Some(order.balance_cents), 0)
    );
    assert_eq!(
        counted(|| json.iter(Order::line_items.then(each())).count()),
        (order.line_items.len(), 0)
    );
    let duplicates = Duplicates::new();
    assert_eq!(
        counted(|| Strict::<Order>::validated(&bytes, &duplicates).map(|s| s.read(views))),
        (Ok(Some(5)), 0)
    );
    let quantities = Order::line_items.then(each()).then(LineItem::quantity);
    assert_eq!(
        counted(|| json.read_each(quantities).map(Option::unwrap).sum::<u32>()),
        (6, 0)
    );
}

#[test]
fn writes_allocate_what_the_docs_say() {
    let bytes = serde_json::to_vec(&order(7)).unwrap();
    let json = Json::<Order>::new(&bytes);
    let views = Order::counters.then(key("views"));
    let quantities = Order::line_items.then(each()).then(LineItem::quantity);
    let street = Order::address.then(some()).then(Address::street_line);
    let redacted = "REDACTED".to_owned();

    // One allocation, for the new document.
    assert_eq!(
        counted(|| json.set(Order::discount, &0.5).is_some()),
        (true, 1)
    );
    assert_eq!(counted(|| json.set(street, &redacted).is_some()), (true, 1));
    assert_eq!(
        counted(|| json.modify(views, |n| n + 1).is_some()),
        (true, 1)
    );
    assert_eq!(
        counted(|| json.set_all(quantities, &1).is_some()),
        (true, 1)
    );
    assert_eq!(
        counted(|| json.modify_all(quantities, |q| q + 1).is_some()),
        (true, 1)
    );

    // None once the buffer has grown.
    let mut out = Vec::new();
    assert!(json.set_into(street, &redacted, &mut out));
    assert_eq!(
        counted(|| json.set_into(street, &redacted, &mut out)),
        (true, 0)
    );
    assert_eq!(
        counted(|| json.set_into(Order::order_id, &7, &mut out)),
        (true, 0)
    );
    assert_eq!(
        counted(|| json.set_all_into(quantities, &1, &mut out)),
        (true, 0)
    );

    // Changes too: the same bytes as `modify`, into a buffer kept.
    let bumped = json.modify(views, |n| n + 1).unwrap();
    assert_eq!(
        counted(|| json.modify_into(views, |n| n + 1, &mut out)),
        (true, 0)
    );
    assert_eq!(out, bumped);
    let doubled = json.modify_all(quantities, |q| q * 2).unwrap();
    assert_eq!(
        counted(|| json.modify_all_into(quantities, |q| q * 2, &mut out)),
        (true, 0)
    );
    assert_eq!(out, doubled);
    // No focus, or one that does not decode: nothing written, `out` empty.
    let text = String::from_utf8(bytes.clone()).unwrap();
    let not_a_number = text.replace(r#""views":7"#, r#""views":"x""#);
    assert_ne!(not_a_number, text);
    assert!(!Json::<Order>::new(not_a_number.as_bytes()).modify_into(views, |n| n + 1, &mut out));
    assert!(out.is_empty());
    assert!(!json.modify_into(Order::counters.then(key("none")), |n| n + 1, &mut out));
    assert!(out.is_empty());
}

/// Strings a reader could mistake for structure: keys of the model inside
/// values, quotes, backslashes, braces, non-ASCII.
fn tricky_string() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(r#"","channel":"evil"#.to_owned()),
        Just(r#"\"}]},"orderId":7,"#.to_owned()),
        Just(r#"{"views":1}"#.to_owned()),
        Just("\\".to_owned()),
        Just("\u{1F600}\u{e9}\n\t\u{1}".to_owned()),
        Just("views".to_owned()),
        Just("courier".to_owned()),
        any::<String>(),
        "[a-z]{0,12}",
    ]
}

fn status() -> impl Strategy<Value = Status> {
    prop_oneof![
        Just(Status::Pending),
        tricky_string().prop_map(Status::Held),
        (tricky_string(), any::<u64>())
            .prop_map(|(carrier, tracking)| Status::Shipped { carrier, tracking }),
    ]
}

fn shipping() -> impl Strategy<Value = Shipping> {
    prop_oneof![
        Just(Shipping::Pickup),
        (tricky_string(), any::<bool>()).prop_map(|(company_name, express)| {
            Shipping::Courier(Courier {
                company_name,
                express,
            })
        }),
        (-1000i32..1000, any::<u32>()).prop_map(|(w, pallets)| Shipping::Freight {
            weight: w as f32 / 4.0,
            pallets,
        }),
    ]
}

fn line_item() -> impl Strategy<Value = LineItem> {
    (tricky_string(), any::<u32>(), -4000i32..4000, any::<bool>()).prop_map(
        |(sku, quantity, cents, gift)| LineItem {
            sku,
            quantity,
            unit_price: f64::from(cents) / 4.0,
            gift,
        },
    )
}

fn note() -> impl Strategy<Value = Note> {
    let leaf = tricky_string().prop_map(|text| Note { text, reply: None });
    leaf.prop_recursive(4, 8, 1, |inner| {
        (tricky_string(), proptest::option::of(inner)).prop_map(|(text, reply)| Note {
            text,
            reply: reply.map(Box::new),
        })
    })
}

prop_compose! {
    fn random_order()(
        order_id in prop_oneof![any::<u128>(), any::<u64>().prop_map(u128::from)],
        balance_cents in prop_oneof![any::<i128>(), any::<i64>().prop_map(i128::from)],
        status in status(),
        shipping in shipping(),
        line_items in proptest::collection::vec(line_item(), 0..40),
        address in proptest::option::of((tricky_string(), tricky_string(), proptest::option::of(tricky_string()))),
        counters in proptest::collection::hash_map(tricky_string(), any::<u32>(), 0..6),
        priority in any::<u8>(),
        note in note(),
        discount in -1000i32..1000,
        grade in any::<char>(),
        channel in "[a-z]{0,8}",
    ) -> (Order<'static>, String) {
        let order = Order {
            order_id,
            balance_cents,
            status,
            shipping,
            line_items,
            address: address.map(|(street_line, city, zip_code)| Address { street_line, city, zip_code }),
            counters,
            priority,
            note: Box::new(note),
            discount: discount as f32 / 8.0,
            grade,
            channel: "",
        };
        (order, channel)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(64)))]

    #[test]
    fn random_orders_read_and_write_as_serde_json(
        (order, channel) in random_order(),
        pretty in any::<bool>(),
        before in "[ \t\r\n]{0,3}",
        after in "[ \t\r\n]{0,3}",
        front in any::<bool>(),
    ) {
        let order = Order { channel: &channel, ..order };
        let mut bytes = before.into_bytes();
        if pretty {
            serde_json::to_writer_pretty(&mut bytes, &order).unwrap();
        } else {
            serde_json::to_writer(&mut bytes, &order).unwrap();
        }
        bytes.extend_from_slice(after.as_bytes());
        check_strict_reads(&bytes);
        check_duplicate_refused(&bytes, front);
        // Through serde_json's `Value`, members come out in key order: the
        // adjacent content before its tag, late fields early. (A `Value`
        // holds no integer past 64 bits.)
        if let Ok(sorted) = serde_json::to_value(&order) {
            let sorted = serde_json::to_vec(&sorted).unwrap();
            check_reads(&sorted);
            check_writes(&sorted);
            check_strict_reads(&sorted);
        }
        check_reads(&bytes);
        check_writes(&bytes);
        let json = Json::<Order>::new(&bytes);
        for k in order.counters.keys() {
            prop_assert_eq!(json.read(Order::counters.then(key(k.as_str()))), order.counters.get(k).copied());
        }
    }
}

/// Strict reads of a well-formed order with no key twice: what the
/// trusting reads and serde_json give.
fn check_strict_reads(bytes: &[u8]) {
    let value = decode(bytes);
    let duplicates = Duplicates::new();
    let strict = Strict::<Order>::validated(bytes, &duplicates).unwrap();
    assert_eq!(strict.read(Order::channel), Some(value.channel));
    assert_eq!(strict.read(Order::grade), Some(value.grade));
    assert_eq!(strict.read(Order::discount), Some(value.discount));
    assert_eq!(strict.read(Order::order_id), Some(value.order_id));
    let reply = Order::note.then(Note::reply).then(some()).then(Note::text);
    assert_eq!(strict.read(reply), reply.preview(&value).cloned());
    let company = Order::shipping
        .then(Shipping::courier)
        .then(Courier::company_name);
    assert_eq!(strict.read(company), company.preview(&value).cloned());
    let carrier = Order::status.then(Status::shipped_carrier);
    assert_eq!(strict.read(carrier), carrier.preview(&value).cloned());
    let last_sku = Order::line_items
        .then(at(value.line_items.len().saturating_sub(1)))
        .then(LineItem::sku);
    assert_eq!(strict.read(last_sku), last_sku.preview(&value).cloned());
    for k in value.counters.keys() {
        let counter = Order::counters.then(key(k.as_str()));
        assert_eq!(strict.read(counter), counter.preview(&value).copied());
    }
    let memo = Strict::<Order>::validated_view(bytes, &duplicates, Order::note).unwrap();
    assert_eq!(
        memo.and_then(|m| m.read(Note::text)),
        Some(value.note.text.clone())
    );
    assert!(!duplicates.met());
}

/// Each root member given a second time, at the front or the back of the
/// object: serde_json refuses the order, a strict read of that member
/// refuses and says so, and a strict read of another member does not.
fn check_duplicate_refused(bytes: &[u8], front: bool) {
    let value = decode(bytes);
    let text = std::str::from_utf8(bytes).unwrap();
    let open = text.find('{').unwrap();
    let close = text.rfind('}').unwrap();
    let members: [(&str, String); 4] = [
        ("channel", r#""channel":"dup""#.to_owned()),
        ("grade", r#""grade":"D""#.to_owned()),
        ("orderId", r#""orderId":12"#.to_owned()),
        ("memo", r#""memo":{"text":"dup","reply":null}"#.to_owned()),
    ];
    for (name, member) in members {
        let twice = if front {
            format!("{}{member},{}", &text[..=open], &text[open + 1..])
        } else {
            format!("{},{member}{}", &text[..close], &text[close..])
        };
        let twice = twice.as_bytes();
        assert!(serde_json::from_slice::<Order>(twice).is_err());
        let duplicates = Duplicates::new();
        let strict = Strict::<Order>::validated(twice, &duplicates).unwrap();
        let read = match name {
            "channel" => strict.read(Order::channel).map(|_| ()),
            "grade" => strict.read(Order::grade).map(|_| ()),
            "orderId" => strict.read(Order::order_id).map(|_| ()),
            _ => strict.read(Order::note.then(Note::text)).map(|_| ()),
        };
        assert_eq!(
            read,
            None,
            "{name} twice: {}",
            String::from_utf8_lossy(twice)
        );
        assert!(duplicates.met(), "{name} twice");
        // Where: the key's second standing, which is the injected member at
        // the back, or the serialized one behind it at the front.
        let quoted = format!("\"{name}\"");
        let at = duplicates.offset_in(twice).unwrap();
        assert!(
            twice[at..].starts_with(quoted.as_bytes()),
            "{name} twice, at {at}"
        );
        let injected = if front { open + 1 } else { close + 1 };
        assert_eq!(at == injected, !front, "{name} twice, at {at}");
        // Off the path, a repeated key is not looked at, the object's first
        // included (no tag is read from an `Order`).
        let duplicates = Duplicates::new();
        let strict = Strict::<Order>::validated(twice, &duplicates).unwrap();
        assert_eq!(
            strict.read(Order::discount),
            Some(value.discount),
            "{name} twice"
        );
        assert!(!duplicates.met(), "{name} twice, discount read");
        let duplicates = Duplicates::new();
        let view = Strict::<Order>::validated_view(twice, &duplicates, Order::note).unwrap();
        let refused = name == "memo";
        assert_eq!(view.is_none(), refused, "{name} twice, memo viewed");
        assert_eq!(duplicates.met(), refused, "{name} twice, memo viewed");
        if refused {
            let at = duplicates.offset_in(twice).unwrap();
            let found = twice[at..].starts_with(quoted.as_bytes());
            assert!(found, "{name} twice, memo viewed, at {at}");
        }
    }
}

/// A second model, for what the first leaves out: an internally tagged
/// enum, a flattened struct, aliases, members serde skips when empty.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Invoice {
    #[serde(alias = "id")]
    invoice_no: u64,
    payment: Payment,
    #[serde(flatten)]
    audit: Audit,
    #[serde(skip_serializing_if = "Option::is_none")]
    po_number: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(tag = "method", rename_all = "snake_case")]
enum Payment {
    Cash,
    Card(Card),
    Voucher { code: String, amount: u32 },
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Card {
    last_four: String,
    network: Network,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
enum Network {
    Visa,
    Amex,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
struct Audit {
    created_by: String,
    revision: u32,
}

fn payment() -> impl Strategy<Value = Payment> {
    prop_oneof![
        Just(Payment::Cash),
        (tricky_string(), any::<bool>()).prop_map(|(last_four, amex)| Payment::Card(Card {
            last_four,
            network: if amex { Network::Amex } else { Network::Visa },
        })),
        (tricky_string(), any::<u32>())
            .prop_map(|(code, amount)| Payment::Voucher { code, amount }),
    ]
}

prop_compose! {
    fn random_invoice()(
        invoice_no in any::<u64>(),
        payment in payment(),
        created_by in tricky_string(),
        revision in any::<u32>(),
        po_number in proptest::option::of(tricky_string()),
        tags in proptest::collection::vec(tricky_string(), 0..4),
    ) -> Invoice {
        Invoice { invoice_no, payment, audit: Audit { created_by, revision }, po_number, tags }
    }
}

/// Holds a byte write on an invoice to the same write on its decode.
fn check_invoice_write(
    what: &str,
    bytes: &[u8],
    on_bytes: impl FnOnce(Json<'_, Invoice>) -> Option<Vec<u8>>,
    on_value: impl FnOnce(&mut Invoice) -> bool,
) {
    let mut value: Invoice = serde_json::from_slice(bytes).unwrap();
    let written = on_value(&mut value);
    let text = String::from_utf8_lossy(bytes);
    match on_bytes(Json::new(bytes)) {
        Some(patched) => {
            assert!(written, "{what}: written without a focus: {text}");
            let decoded: Invoice = serde_json::from_slice(&patched)
                .unwrap_or_else(|e| panic!("{what}: {e} in {}", String::from_utf8_lossy(&patched)));
            assert_eq!(
                decoded,
                value,
                "{what}: {}",
                String::from_utf8_lossy(&patched)
            );
        }
        None => assert!(!written, "{what}: refused: {text}"),
    }
}

/// `value` as serde_json writes it, compact or pretty.
fn encoded<T: Serialize>(value: &T, pretty: bool) -> Vec<u8> {
    if pretty {
        serde_json::to_vec_pretty(value).unwrap()
    } else {
        serde_json::to_vec(value).unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(64)))]

    #[test]
    fn random_invoices_read_and_write_as_serde_json(invoice in random_invoice(), pretty in any::<bool>()) {
        let bytes = encoded(&invoice, pretty);
        let json = Json::<Invoice>::new(&bytes);
        let value: Invoice = serde_json::from_slice(&bytes).unwrap();
        prop_assert_eq!(&value, &invoice);
        prop_assert_eq!(json.read(Invoice::invoice_no), Some(value.invoice_no));
        prop_assert_eq!(json.read(Invoice::payment), Some(value.payment.clone()));
        prop_assert_eq!(json.read(Invoice::payment.then(Payment::kind)), Some(*Payment::kind.get(&value.payment)));
        let network = Invoice::payment.then(Payment::card).then(Card::network);
        prop_assert_eq!(json.read(network), network.preview(&value).copied());
        let last_four = Invoice::payment.then(Payment::card).then(Card::last_four);
        prop_assert_eq!(json.read(last_four), last_four.preview(&value).cloned());
        let code = Invoice::payment.then(Payment::voucher_code);
        prop_assert_eq!(json.read(code), code.preview(&value).cloned());
        let amount = Invoice::payment.then(Payment::voucher_amount);
        prop_assert_eq!(json.read(amount), amount.preview(&value).copied());
        let cash = Invoice::payment.then(Payment::cash);
        prop_assert_eq!(json.read(cash), cash.preview(&value).copied());
        prop_assert_eq!(json.read(Invoice::audit), Some(value.audit.clone()));
        let by = Invoice::audit.then(Audit::created_by);
        prop_assert_eq!(json.read(by), Some(value.audit.created_by.clone()));
        let revision = Invoice::audit.then(Audit::revision);
        prop_assert_eq!(json.read(revision), Some(value.audit.revision));
        prop_assert_eq!(json.read(Invoice::po_number), Some(value.po_number.clone()));
        prop_assert_eq!(json.read(Invoice::tags), Some(value.tags.clone()));
        let tags: Option<Vec<String>> = json.read_each(Invoice::tags.then(each())).collect();
        prop_assert_eq!(tags, Some(value.tags.clone()));

        check_invoice_write("revision", &bytes, |j| j.modify(revision, |r| r.wrapping_add(1)), |v| {
            revision.modify(v, |r| *r = r.wrapping_add(1))
        });
        check_invoice_write("created by", &bytes, |j| j.set(by, &"x".to_owned()), |v| {
            by.modify(v, |b| *b = "x".to_owned())
        });
        check_invoice_write("network", &bytes, |j| j.set(network, &Network::Amex), |v| {
            network.modify(v, |n| *n = Network::Amex)
        });
        check_invoice_write("amount", &bytes, |j| j.modify(amount, |a| a / 2), |v| {
            amount.modify(v, |a| *a /= 2)
        });
        let card = Payment::Card(Card { last_four: "0000".to_owned(), network: Network::Visa });
        check_invoice_write("payment", &bytes, |j| j.set(Invoice::payment, &card), |v| {
            Invoice::payment.modify(v, |p| *p = card.clone())
        });
        check_invoice_write("po number", &bytes, |j| j.set(Invoice::po_number, &None), |v| {
            Invoice::po_number.modify(v, |p| *p = None)
        });
        check_invoice_write("po number set", &bytes, |j| j.set(Invoice::po_number, &Some("po".to_owned())), |v| {
            Invoice::po_number.modify(v, |p| *p = Some("po".to_owned()))
        });
        check_invoice_write("no tags", &bytes, |j| j.set(Invoice::tags, &Vec::new()), |v| {
            Invoice::tags.modify(v, |t| t.clear())
        });
        check_invoice_write("tags", &bytes, |j| j.set_all(Invoice::tags.then(each()), &"t".to_owned()), |v| {
            Invoice::tags.then(each()).set_all(v, "t".to_owned());
            true
        });
        let old_id = format!("{{\"id\":{},{}", value.invoice_no, &String::from_utf8_lossy(&bytes)[1..].split_once(',').unwrap().1);
        prop_assert_eq!(Json::<Invoice>::new(old_id.as_bytes()).read(Invoice::invoice_no), Some(value.invoice_no));
    }
}

/// A third model: newtype ids, tuple structs, integer-keyed maps, fixed
/// arrays, nested options.
#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Shipment {
    id: ShipmentId,
    #[serde(rename = "dims")]
    dimensions: Dims,
    stops: std::collections::VecDeque<Stop>,
    by_zone: std::collections::BTreeMap<u16, Vec<char>>,
    seal: [u8; 4],
    signed_by: Option<Option<String>>,
    weight: Weight,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct ShipmentId(u128);

#[derive(Optics, Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct Dims(u32, u32, f32);

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(transparent)]
struct Weight {
    grams: i64,
}

#[derive(Optics, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
struct Stop {
    city_code: String,
    eta: Option<u64>,
}

prop_compose! {
    fn random_shipment()(
        id in any::<u128>(),
        dims in (any::<u32>(), any::<u32>(), -100i32..100),
        stops in proptest::collection::vec_deque((tricky_string(), proptest::option::of(any::<u64>())), 0..5),
        by_zone in proptest::collection::btree_map(any::<u16>(), proptest::collection::vec(any::<char>(), 0..3), 0..4),
        seal in any::<[u8; 4]>(),
        signed_by in proptest::option::of(proptest::option::of(tricky_string())),
        grams in any::<i64>(),
    ) -> Shipment {
        Shipment {
            id: ShipmentId(id),
            dimensions: Dims(dims.0, dims.1, dims.2 as f32 / 2.0),
            stops: stops.into_iter().map(|(city_code, eta)| Stop { city_code, eta }).collect(),
            by_zone,
            seal,
            signed_by,
            weight: Weight { grams },
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(scale::scaled(64)))]

    #[test]
    fn random_shipments_read_and_write_as_serde_json(shipment in random_shipment(), pretty in any::<bool>()) {
        let bytes = encoded(&shipment, pretty);
        let json = Json::<Shipment>::new(&bytes);
        let value: Shipment = serde_json::from_slice(&bytes).unwrap();
        let id = Shipment::id.then(ShipmentId::_0);
        prop_assert_eq!(json.read(id), Some(value.id.0));
        prop_assert_eq!(json.read(Shipment::id), Some(value.id));
        prop_assert_eq!(json.read(Shipment::dimensions.then(Dims::_2)), Some(value.dimensions.2));
        prop_assert_eq!(json.read(Shipment::dimensions.then(Dims::_1)), Some(value.dimensions.1));
        prop_assert_eq!(json.read(Shipment::weight.then(Weight::grams)), Some(value.weight.grams));
        prop_assert_eq!(json.read(Shipment::seal.then(at(3))), Some(value.seal[3]));
        prop_assert_eq!(json.read(Shipment::signed_by), Some(value.signed_by.clone()));
        let signer = Shipment::signed_by.then(some()).then(some());
        prop_assert_eq!(json.read(signer), signer.preview(&value).cloned());
        for i in 0..5 {
            let eta = Shipment::stops.then(at(i)).then(Stop::eta).then(some());
            prop_assert_eq!(json.read(eta), eta.preview(&value).copied());
            let city = Shipment::stops.then(at(i)).then(Stop::city_code);
            prop_assert_eq!(json.read(city), city.preview(&value).cloned());
        }
        for zone in value.by_zone.keys().copied().chain([0, 7, u16::MAX]) {
            let chars = Shipment::by_zone.then(key(&zone));
            prop_assert_eq!(json.read(chars), chars.preview(&value).cloned());
            let first = chars.then(at(0));
            prop_assert_eq!(json.read(first), first.preview(&value).copied());
        }
        let all_chars = Shipment::by_zone.then(each()).then(each());
        let on_bytes: Option<Vec<char>> = json.read_each(all_chars).collect();
        prop_assert_eq!(on_bytes, Some(all_chars.iter(&value).copied().collect::<Vec<char>>()));

        // Writes, held to the same write on the value.
        let write = |patched: Option<Vec<u8>>, expected: &Shipment| -> Result<(), TestCaseError> {
            let patched = patched.expect("a focus to write");
            let decoded: Shipment = serde_json::from_slice(&patched).unwrap();
            prop_assert_eq!(&decoded, expected);
            Ok(())
        };
        let mut expected = value.clone();
        id.set(&mut expected, 5);
        write(json.set(id, &5), &expected)?;
        let mut expected = value.clone();
        Shipment::weight.then(Weight::grams).set(&mut expected, -1);
        write(json.set(Shipment::weight.then(Weight::grams), &-1), &expected)?;
        let mut expected = value.clone();
        Shipment::seal.then(at(0)).set(&mut expected, 9);
        write(json.set(Shipment::seal.then(at(0)), &9), &expected)?;
        let mut expected = value.clone();
        Shipment::signed_by.set(&mut expected, Some(None));
        // serde writes `Some(None)` as `null`, which reads back as `None`.
        expected.signed_by = None;
        write(json.set(Shipment::signed_by, &Some(None)), &expected)?;
        let mut expected = value.clone();
        Shipment::dimensions.then(Dims::_2).set(&mut expected, 1.5);
        write(json.set(Shipment::dimensions.then(Dims::_2), &1.5), &expected)?;
        let mut expected = value.clone();
        let etas = Shipment::stops.then(each()).then(Stop::eta);
        etas.set_all(&mut expected, None);
        write(json.set_all(etas, &None), &expected)?;
        let mut expected = value.clone();
        all_chars.set_all(&mut expected, 'z');
        write(json.set_all(all_chars, &'z'), &expected)?;
    }
}
