from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.confidence import Confidence

if TYPE_CHECKING:
    from ..models.candidate import Candidate
    from ..models.display import Display
    from ..models.extracted import Extracted
    from ..models.resolved_params import ResolvedParams


T = TypeVar("T", bound="ResolveResult")


@_attrs_define
class ResolveResult:
    """The resolution, and alt text for the image its parameters name.

    Attributes:
        candidates (list[Candidate]):
        confidence (Confidence):
        display (Display):
        extracted (Extracted): What the parser recognised in the text; `None` (JSON null) when absent.
        image_path (str):
        params (ResolvedParams): Exact request parameters (spec `params`).
        alt (str): Alt text for the `<img>` tag of `image_path`: colour, year, make,
            model, body style and view. Example: Red 2019 Toyota Camry saloon, front three-quarter view.
    """

    candidates: list[Candidate]
    confidence: Confidence
    display: Display
    extracted: Extracted
    image_path: str
    params: ResolvedParams
    alt: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)

        confidence = self.confidence.value

        display = self.display.to_dict()

        extracted = self.extracted.to_dict()

        image_path = self.image_path

        params = self.params.to_dict()

        alt = self.alt

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "candidates": candidates,
                "confidence": confidence,
                "display": display,
                "extracted": extracted,
                "image_path": image_path,
                "params": params,
                "alt": alt,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.candidate import Candidate
        from ..models.display import Display
        from ..models.extracted import Extracted
        from ..models.resolved_params import ResolvedParams

        d = dict(src_dict)
        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in _candidates:
            candidates_item = Candidate.from_dict(candidates_item_data)

            candidates.append(candidates_item)

        confidence = Confidence(d.pop("confidence"))

        display = Display.from_dict(d.pop("display"))

        extracted = Extracted.from_dict(d.pop("extracted"))

        image_path = d.pop("image_path")

        params = ResolvedParams.from_dict(d.pop("params"))

        alt = d.pop("alt")

        resolve_result = cls(
            candidates=candidates,
            confidence=confidence,
            display=display,
            extracted=extracted,
            image_path=image_path,
            params=params,
            alt=alt,
        )

        resolve_result.additional_properties = d
        return resolve_result

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
