from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.feedback_request_color_type_0 import FeedbackRequestColorType0
from ..models.feedback_request_color_type_3_type_0 import FeedbackRequestColorType3Type0
from ..models.feedback_request_color_type_4_type_0 import FeedbackRequestColorType4Type0
from ..models.feedback_request_verdict_type_0 import FeedbackRequestVerdictType0
from ..models.feedback_request_view_type_0 import FeedbackRequestViewType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="FeedbackRequest")


@_attrs_define
class FeedbackRequest:
    """
    Attributes:
        color (Any | FeedbackRequestColorType0 | FeedbackRequestColorType3Type0 | FeedbackRequestColorType4Type0 | None
            | Unset):
        make (None | str | Unset): Make name or slug (with model and year, instead of request_id).
        model (None | str | Unset): Model name or slug.
        rating (int | None | Unset): 1 (bad) to 5 (good); 1 and 2 count as negative unless a verdict says otherwise.
        reason (None | str | Unset):
        request_id (None | str | Unset): The X-Request-Id of the request that delivered the image (get_image's
            request_id).
        verdict (FeedbackRequestVerdictType0 | None | Unset):
        view (FeedbackRequestViewType0 | None | Unset): A camera view: the six studio views of spec §2, top (from
            directly above), or a turntable angle angle-0 to angle-345 in steps of 15 (0 the nose, 90 the left side).
            Default front-3-4.
        year (int | None | Unset):
    """

    color: (
        Any
        | FeedbackRequestColorType0
        | FeedbackRequestColorType3Type0
        | FeedbackRequestColorType4Type0
        | None
        | Unset
    ) = UNSET
    make: None | str | Unset = UNSET
    model: None | str | Unset = UNSET
    rating: int | None | Unset = UNSET
    reason: None | str | Unset = UNSET
    request_id: None | str | Unset = UNSET
    verdict: FeedbackRequestVerdictType0 | None | Unset = UNSET
    view: FeedbackRequestViewType0 | None | Unset = UNSET
    year: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        color: Any | None | str | Unset
        if isinstance(self.color, Unset):
            color = UNSET
        elif (
            isinstance(self.color, FeedbackRequestColorType0)
            or isinstance(self.color, FeedbackRequestColorType3Type0)
            or isinstance(self.color, FeedbackRequestColorType4Type0)
        ):
            color = self.color.value
        else:
            color = self.color

        make: None | str | Unset
        if isinstance(self.make, Unset):
            make = UNSET
        else:
            make = self.make

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        rating: int | None | Unset
        if isinstance(self.rating, Unset):
            rating = UNSET
        else:
            rating = self.rating

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        else:
            request_id = self.request_id

        verdict: None | str | Unset
        if isinstance(self.verdict, Unset):
            verdict = UNSET
        elif isinstance(self.verdict, FeedbackRequestVerdictType0):
            verdict = self.verdict.value
        else:
            verdict = self.verdict

        view: None | str | Unset
        if isinstance(self.view, Unset):
            view = UNSET
        elif isinstance(self.view, FeedbackRequestViewType0):
            view = self.view.value
        else:
            view = self.view

        year: int | None | Unset
        if isinstance(self.year, Unset):
            year = UNSET
        else:
            year = self.year

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if color is not UNSET:
            field_dict["color"] = color
        if make is not UNSET:
            field_dict["make"] = make
        if model is not UNSET:
            field_dict["model"] = model
        if rating is not UNSET:
            field_dict["rating"] = rating
        if reason is not UNSET:
            field_dict["reason"] = reason
        if request_id is not UNSET:
            field_dict["request_id"] = request_id
        if verdict is not UNSET:
            field_dict["verdict"] = verdict
        if view is not UNSET:
            field_dict["view"] = view
        if year is not UNSET:
            field_dict["year"] = year

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_color(
            data: object,
        ) -> (
            Any
            | FeedbackRequestColorType0
            | FeedbackRequestColorType3Type0
            | FeedbackRequestColorType4Type0
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                color_type_0 = FeedbackRequestColorType0(data)

                return color_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                color_type_3_type_0 = FeedbackRequestColorType3Type0(data)

                return color_type_3_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                color_type_4_type_0 = FeedbackRequestColorType4Type0(data)

                return color_type_4_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                Any
                | FeedbackRequestColorType0
                | FeedbackRequestColorType3Type0
                | FeedbackRequestColorType4Type0
                | None
                | Unset,
                data,
            )

        color = _parse_color(d.pop("color", UNSET))

        def _parse_make(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        make = _parse_make(d.pop("make", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_rating(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        rating = _parse_rating(d.pop("rating", UNSET))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_request_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        request_id = _parse_request_id(d.pop("request_id", UNSET))

        def _parse_verdict(data: object) -> FeedbackRequestVerdictType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                verdict_type_0 = FeedbackRequestVerdictType0(data)

                return verdict_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FeedbackRequestVerdictType0 | None | Unset, data)

        verdict = _parse_verdict(d.pop("verdict", UNSET))

        def _parse_view(data: object) -> FeedbackRequestViewType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                view_type_0 = FeedbackRequestViewType0(data)

                return view_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FeedbackRequestViewType0 | None | Unset, data)

        view = _parse_view(d.pop("view", UNSET))

        def _parse_year(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        year = _parse_year(d.pop("year", UNSET))

        feedback_request = cls(
            color=color,
            make=make,
            model=model,
            rating=rating,
            reason=reason,
            request_id=request_id,
            verdict=verdict,
            view=view,
            year=year,
        )

        return feedback_request
