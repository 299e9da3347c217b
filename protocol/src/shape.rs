//! Body shapes the renderer can draw. The catalog maps every model-year to one.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::ParseError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BodyShape {
    Sedan,
    Coupe,
    Convertible,
    Hatchback,
    Wagon,
    Suv,
    Crossover,
    Pickup,
    Minivan,
    Van,
    BoxTruck,
    Bus,
    Motorcycle,
}

impl BodyShape {
    pub const ALL: [BodyShape; 13] = [
        BodyShape::Sedan,
        BodyShape::Coupe,
        BodyShape::Convertible,
        BodyShape::Hatchback,
        BodyShape::Wagon,
        BodyShape::Suv,
        BodyShape::Crossover,
        BodyShape::Pickup,
        BodyShape::Minivan,
        BodyShape::Van,
        BodyShape::BoxTruck,
        BodyShape::Bus,
        BodyShape::Motorcycle,
    ];

    pub fn id(self) -> &'static str {
        match self {
            BodyShape::Sedan => "sedan",
            BodyShape::Coupe => "coupe",
            BodyShape::Convertible => "convertible",
            BodyShape::Hatchback => "hatchback",
            BodyShape::Wagon => "wagon",
            BodyShape::Suv => "suv",
            BodyShape::Crossover => "crossover",
            BodyShape::Pickup => "pickup",
            BodyShape::Minivan => "minivan",
            BodyShape::Van => "van",
            BodyShape::BoxTruck => "box-truck",
            BodyShape::Bus => "bus",
            BodyShape::Motorcycle => "motorcycle",
        }
    }
}

impl fmt::Display for BodyShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for BodyShape {
    type Err = ParseError;
    fn from_str(raw: &str) -> Result<Self, ParseError> {
        let wanted = raw.trim().to_ascii_lowercase().replace('_', "-");
        BodyShape::ALL
            .iter()
            .copied()
            .find(|s| s.id() == wanted)
            .ok_or_else(|| ParseError {
                kind: "shape",
                value: raw.to_owned(),
                expected: BodyShape::ALL
                    .iter()
                    .map(|s| s.id())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_round_trip() {
        for s in BodyShape::ALL {
            assert_eq!(s.id().parse::<BodyShape>().unwrap(), s);
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{}\"", s.id()));
        }
        assert!("tank".parse::<BodyShape>().is_err());
    }
}
