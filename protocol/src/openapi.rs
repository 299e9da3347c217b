//! OpenAPI schemas of the enumerations (feature `openapi`): the canonical
//! ids the API answers with, and, for request parameters, every spelling it
//! accepts. Written by hand because the enums serialise through `id()`.

use std::borrow::Cow;

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, SchemaType, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::{BodyShape, Color, Format, FormatChoice, SizePreset, View};

fn string_enum(values: Vec<&'static str>, description: &str) -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .enum_values(Some(values))
        .description(Some(description))
        .into()
}

macro_rules! enum_schema {
    ($ty:ty, $name:literal, $description:literal) => {
        impl PartialSchema for $ty {
            fn schema() -> RefOr<Schema> {
                string_enum(<$ty>::ALL.iter().map(|v| v.id()).collect(), $description)
            }
        }
        impl ToSchema for $ty {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
        }
        impl $ty {
            /// The schema of a request parameter: the ids and their aliases.
            pub fn accepted_schema() -> RefOr<Schema> {
                let mut values: Vec<&'static str> = Vec::new();
                for v in <$ty>::ALL {
                    values.push(v.id());
                    values.extend_from_slice(v.aliases());
                }
                string_enum(values, $description)
            }
        }
    };
}

const VIEW: &str = "A camera view: the six studio views of spec §2, top (from directly above), \
     or a turntable angle angle-0 to angle-345 in steps of 15 (0 the nose, 90 the left side). \
     Default front-3-4.";

impl PartialSchema for View {
    fn schema() -> RefOr<Schema> {
        string_enum(View::every().map(View::id).collect(), VIEW)
    }
}

impl ToSchema for View {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("View")
    }
}

impl View {
    /// The schema of the `view` parameter: every view's id and the named
    /// views' aliases.
    pub fn accepted_schema() -> RefOr<Schema> {
        let mut values: Vec<&'static str> = Vec::new();
        for v in View::every() {
            values.push(v.id());
            values.extend_from_slice(v.aliases());
        }
        string_enum(values, VIEW)
    }
}
enum_schema!(Color, "Color", "A preset paint colour. Default silver.");
enum_schema!(
    Format,
    "Format",
    "An output format: png, webp and avif keep the transparent background; jpg is flattened on white."
);

const FORMAT_CHOICE: &str = "An output format, or auto: the smallest format the client's Accept \
     header names (avif, then webp; else png, or jpg for an opaque image). png, webp and avif \
     keep the transparent background; jpg is flattened on white. Default png.";

impl PartialSchema for FormatChoice {
    fn schema() -> RefOr<Schema> {
        let mut values: Vec<&'static str> = Format::ALL.iter().map(|f| f.id()).collect();
        values.push("auto");
        string_enum(values, FORMAT_CHOICE)
    }
}

impl ToSchema for FormatChoice {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("FormatChoice")
    }
}

impl FormatChoice {
    /// The schema of the `format` parameter: every format, its aliases,
    /// and auto.
    pub fn accepted_schema() -> RefOr<Schema> {
        let mut values: Vec<&'static str> = Vec::new();
        for f in Format::ALL {
            values.push(f.id());
            values.extend_from_slice(f.aliases());
        }
        values.push("auto");
        string_enum(values, FORMAT_CHOICE)
    }
}
enum_schema!(
    SizePreset,
    "SizePreset",
    "A size shorthand for the width: thumb 256, small 512, medium 768, large 1024."
);

impl PartialSchema for BodyShape {
    fn schema() -> RefOr<Schema> {
        string_enum(
            BodyShape::ALL.iter().map(|v| v.id()).collect(),
            "The body shape the renderer draws.",
        )
    }
}

impl ToSchema for BodyShape {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("BodyShape")
    }
}
