from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.image_request import ImageRequest


T = TypeVar("T", bound="BatchImageUrlRequest")


@_attrs_define
class BatchImageUrlRequest:
    """
    Attributes:
        images (list[ImageRequest]):
        max_uses (int | None | Unset): Loads allowed; 0 (default) means unlimited until expiry.
        ttl_seconds (int | None | Unset): URL lifetime, seconds; default 3600; clamped to the deployment's bounds.
    """

    images: list[ImageRequest]
    max_uses: int | None | Unset = UNSET
    ttl_seconds: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        images = []
        for images_item_data in self.images:
            images_item = images_item_data.to_dict()
            images.append(images_item)

        max_uses: int | None | Unset
        if isinstance(self.max_uses, Unset):
            max_uses = UNSET
        else:
            max_uses = self.max_uses

        ttl_seconds: int | None | Unset
        if isinstance(self.ttl_seconds, Unset):
            ttl_seconds = UNSET
        else:
            ttl_seconds = self.ttl_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "images": images,
            }
        )
        if max_uses is not UNSET:
            field_dict["max_uses"] = max_uses
        if ttl_seconds is not UNSET:
            field_dict["ttl_seconds"] = ttl_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.image_request import ImageRequest

        d = dict(src_dict)
        images = []
        _images = d.pop("images")
        for images_item_data in _images:
            images_item = ImageRequest.from_dict(images_item_data)

            images.append(images_item)

        def _parse_max_uses(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_uses = _parse_max_uses(d.pop("max_uses", UNSET))

        def _parse_ttl_seconds(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_seconds = _parse_ttl_seconds(d.pop("ttl_seconds", UNSET))

        batch_image_url_request = cls(
            images=images,
            max_uses=max_uses,
            ttl_seconds=ttl_seconds,
        )

        return batch_image_url_request
