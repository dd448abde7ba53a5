//! Schema-less reading of protobuf messages (harness stores with no published `.proto`): the
//! fields of one message by number, decoded with `prost`'s wire-format primitives.

use prost::encoding::{WireType, decode_key, decode_varint};

/// One field of a message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    /// Fixed-width values (unused by the readers, kept so decoding goes on past them).
    Fixed,
}

/// The top-level fields of `message` in wire order, `None` when it is not a valid message.
pub fn fields(message: &[u8]) -> Option<Vec<(u32, Value<'_>)>> {
    let mut buffer = message;
    let mut fields = Vec::new();
    while !buffer.is_empty() {
        let (number, wire_type) = decode_key(&mut buffer).ok()?;
        let value = match wire_type {
            WireType::Varint => Value::Varint(decode_varint(&mut buffer).ok()?),
            WireType::LengthDelimited => {
                let length = usize::try_from(decode_varint(&mut buffer).ok()?).ok()?;
                if length > buffer.len() {
                    return None;
                }
                let (bytes, rest) = buffer.split_at(length);
                buffer = rest;
                Value::Bytes(bytes)
            }
            WireType::SixtyFourBit => skip(&mut buffer, 8)?,
            WireType::ThirtyTwoBit => skip(&mut buffer, 4)?,
            WireType::StartGroup | WireType::EndGroup => return None,
        };
        fields.push((number, value));
    }
    Some(fields)
}

fn skip<'a>(buffer: &mut &'a [u8], width: usize) -> Option<Value<'a>> {
    if buffer.len() < width {
        return None;
    }
    *buffer = &buffer[width..];
    Some(Value::Fixed)
}

/// The first varint field `number`.
pub fn varint(fields: &[(u32, Value<'_>)], number: u32) -> Option<u64> {
    fields.iter().find_map(|(field, value)| match value {
        Value::Varint(value) if *field == number => Some(*value),
        _ => None,
    })
}

/// Every length-delimited field `number`, in order.
pub fn all_bytes<'a>(fields: &[(u32, Value<'a>)], number: u32) -> Vec<&'a [u8]> {
    fields
        .iter()
        .filter_map(|(field, value)| match value {
            Value::Bytes(bytes) if *field == number => Some(*bytes),
            _ => None,
        })
        .collect()
}

/// The first length-delimited field `number`.
pub fn bytes<'a>(fields: &[(u32, Value<'a>)], number: u32) -> Option<&'a [u8]> {
    all_bytes(fields, number).into_iter().next()
}

/// The first field `number` as a nested message.
pub fn message<'a>(fields: &[(u32, Value<'a>)], number: u32) -> Option<Vec<(u32, Value<'a>)>> {
    bytes(fields, number).and_then(self::fields)
}

/// The first field `number` as UTF-8 text (non-empty).
pub fn text(fields: &[(u32, Value<'_>)], number: u32) -> Option<String> {
    bytes(fields, number)
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_string)
}

/// Varints of field `number`, whether written one per field or packed.
pub fn repeated_varints(fields: &[(u32, Value<'_>)], number: u32) -> Vec<u64> {
    let mut values = Vec::new();
    for (field, value) in fields {
        if *field != number {
            continue;
        }
        match value {
            Value::Varint(value) => values.push(*value),
            Value::Bytes(packed) => {
                let mut packed: &[u8] = packed;
                while !packed.is_empty() {
                    match decode_varint(&mut packed) {
                        Ok(value) => values.push(value),
                        Err(_) => break,
                    }
                }
            }
            Value::Fixed => {}
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_varints_strings_nested_and_packed_fields() {
        // {1: 150, 2: "hi", 3: {1: 7}, 4: packed [1, 300]}
        let message = [
            0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x1a, 0x02, 0x08, 0x07, 0x22, 0x03, 0x01,
            0xac, 0x02,
        ];
        let fields = fields(&message).unwrap();
        assert_eq!(varint(&fields, 1), Some(150));
        assert_eq!(text(&fields, 2).as_deref(), Some("hi"));
        assert_eq!(varint(&message_of(&fields), 1), Some(7));
        assert_eq!(repeated_varints(&fields, 4), vec![1, 300]);
        assert!(super::fields(&[0x12, 0x05, b'x']).is_none(), "truncated");
    }

    fn message_of<'a>(fields: &[(u32, Value<'a>)]) -> Vec<(u32, Value<'a>)> {
        message(fields, 3).unwrap()
    }
}
