from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.angle_options import AngleOptions
    from ..models.catalog_summary import CatalogSummary
    from ..models.color_option import ColorOption
    from ..models.custom_colors import CustomColors
    from ..models.format_auto import FormatAuto
    from ..models.format_option import FormatOption
    from ..models.framing_options import FramingOptions
    from ..models.options_document_links import OptionsDocumentLinks
    from ..models.options_document_paints import OptionsDocumentPaints
    from ..models.options_limits import OptionsLimits
    from ..models.options_pricing import OptionsPricing
    from ..models.sizes import Sizes
    from ..models.view_option import ViewOption


T = TypeVar("T", bound="OptionsDocument")


@_attrs_define
class OptionsDocument:
    """The options document: every enumeration, size, price and limit.

    Attributes:
        angles (AngleOptions): `angle=N`: degrees around the vehicle from the nose (90 the left side),
            on a grid; responses name an angle's view `angle-N`.
        catalog (CatalogSummary): What the options document says about the loaded catalog.
        colors (list[ColorOption]):
        custom_colors (CustomColors): How `color` takes any colour.
        extra_views (list[ViewOption]): Views beyond the six that `view` also takes: `top`.
        format_auto (FormatAuto): `format=auto`: the format is chosen per request from its `Accept`
            header, and the answer carries `Vary: Accept`.
        formats (list[FormatOption]):
        framing (FramingOptions): How an output frames its render. Framing is free: the same credit as
            the plain image, from the same render.
        limits (OptionsLimits):
        links (OptionsDocumentLinks): Where to go next: docs, errors, openapi, pricing, the endpoints.
        paints (OptionsDocumentPaints): Manufacturers' paint codes (`paint=CODE`), by make slug.
        pricing (OptionsPricing):
        sizes (Sizes):
        views (list[ViewOption]): The six studio views of `view` (the spec's View enumeration).
    """

    angles: AngleOptions
    catalog: CatalogSummary
    colors: list[ColorOption]
    custom_colors: CustomColors
    extra_views: list[ViewOption]
    format_auto: FormatAuto
    formats: list[FormatOption]
    framing: FramingOptions
    limits: OptionsLimits
    links: OptionsDocumentLinks
    paints: OptionsDocumentPaints
    pricing: OptionsPricing
    sizes: Sizes
    views: list[ViewOption]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        angles = self.angles.to_dict()

        catalog = self.catalog.to_dict()

        colors = []
        for colors_item_data in self.colors:
            colors_item = colors_item_data.to_dict()
            colors.append(colors_item)

        custom_colors = self.custom_colors.to_dict()

        extra_views = []
        for extra_views_item_data in self.extra_views:
            extra_views_item = extra_views_item_data.to_dict()
            extra_views.append(extra_views_item)

        format_auto = self.format_auto.to_dict()

        formats = []
        for formats_item_data in self.formats:
            formats_item = formats_item_data.to_dict()
            formats.append(formats_item)

        framing = self.framing.to_dict()

        limits = self.limits.to_dict()

        links = self.links.to_dict()

        paints = self.paints.to_dict()

        pricing = self.pricing.to_dict()

        sizes = self.sizes.to_dict()

        views = []
        for views_item_data in self.views:
            views_item = views_item_data.to_dict()
            views.append(views_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "angles": angles,
                "catalog": catalog,
                "colors": colors,
                "custom_colors": custom_colors,
                "extra_views": extra_views,
                "format_auto": format_auto,
                "formats": formats,
                "framing": framing,
                "limits": limits,
                "links": links,
                "paints": paints,
                "pricing": pricing,
                "sizes": sizes,
                "views": views,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.angle_options import AngleOptions
        from ..models.catalog_summary import CatalogSummary
        from ..models.color_option import ColorOption
        from ..models.custom_colors import CustomColors
        from ..models.format_auto import FormatAuto
        from ..models.format_option import FormatOption
        from ..models.framing_options import FramingOptions
        from ..models.options_document_links import OptionsDocumentLinks
        from ..models.options_document_paints import OptionsDocumentPaints
        from ..models.options_limits import OptionsLimits
        from ..models.options_pricing import OptionsPricing
        from ..models.sizes import Sizes
        from ..models.view_option import ViewOption

        d = dict(src_dict)
        angles = AngleOptions.from_dict(d.pop("angles"))

        catalog = CatalogSummary.from_dict(d.pop("catalog"))

        colors = []
        _colors = d.pop("colors")
        for colors_item_data in _colors:
            colors_item = ColorOption.from_dict(colors_item_data)

            colors.append(colors_item)

        custom_colors = CustomColors.from_dict(d.pop("custom_colors"))

        extra_views = []
        _extra_views = d.pop("extra_views")
        for extra_views_item_data in _extra_views:
            extra_views_item = ViewOption.from_dict(extra_views_item_data)

            extra_views.append(extra_views_item)

        format_auto = FormatAuto.from_dict(d.pop("format_auto"))

        formats = []
        _formats = d.pop("formats")
        for formats_item_data in _formats:
            formats_item = FormatOption.from_dict(formats_item_data)

            formats.append(formats_item)

        framing = FramingOptions.from_dict(d.pop("framing"))

        limits = OptionsLimits.from_dict(d.pop("limits"))

        links = OptionsDocumentLinks.from_dict(d.pop("links"))

        paints = OptionsDocumentPaints.from_dict(d.pop("paints"))

        pricing = OptionsPricing.from_dict(d.pop("pricing"))

        sizes = Sizes.from_dict(d.pop("sizes"))

        views = []
        _views = d.pop("views")
        for views_item_data in _views:
            views_item = ViewOption.from_dict(views_item_data)

            views.append(views_item)

        options_document = cls(
            angles=angles,
            catalog=catalog,
            colors=colors,
            custom_colors=custom_colors,
            extra_views=extra_views,
            format_auto=format_auto,
            formats=formats,
            framing=framing,
            limits=limits,
            links=links,
            paints=paints,
            pricing=pricing,
            sizes=sizes,
            views=views,
        )

        options_document.additional_properties = d
        return options_document

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
