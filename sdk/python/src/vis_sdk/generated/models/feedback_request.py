from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.feedback_request_color import FeedbackRequestColor
from ..models.feedback_request_verdict import FeedbackRequestVerdict
from ..models.feedback_request_view import FeedbackRequestView
from ..types import UNSET, Unset

T = TypeVar("T", bound="FeedbackRequest")


@_attrs_define
class FeedbackRequest:
    """
    Attributes:
        color (FeedbackRequestColor | Unset): A preset paint colour. Default silver.
        make (str | Unset): Make name or slug (with model and year, instead of request_id).
        model (str | Unset): Model name or slug.
        rating (int | Unset): 1 (bad) to 5 (good); 1 and 2 count as negative unless a verdict says otherwise.
        reason (str | Unset):
        request_id (str | Unset): The X-Request-Id of the request that delivered the image (get_image's request_id).
        verdict (FeedbackRequestVerdict | Unset):
        view (FeedbackRequestView | Unset): A camera view (spec §2). Default front-3-4.
        year (int | Unset):
    """

    color: FeedbackRequestColor | Unset = UNSET
    make: str | Unset = UNSET
    model: str | Unset = UNSET
    rating: int | Unset = UNSET
    reason: str | Unset = UNSET
    request_id: str | Unset = UNSET
    verdict: FeedbackRequestVerdict | Unset = UNSET
    view: FeedbackRequestView | Unset = UNSET
    year: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        color: str | Unset = UNSET
        if not isinstance(self.color, Unset):
            color = self.color.value

        make = self.make

        model = self.model

        rating = self.rating

        reason = self.reason

        request_id = self.request_id

        verdict: str | Unset = UNSET
        if not isinstance(self.verdict, Unset):
            verdict = self.verdict.value

        view: str | Unset = UNSET
        if not isinstance(self.view, Unset):
            view = self.view.value

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
        _color = d.pop("color", UNSET)
        color: FeedbackRequestColor | Unset
        if isinstance(_color, Unset):
            color = UNSET
        else:
            color = FeedbackRequestColor(_color)

        make = d.pop("make", UNSET)

        model = d.pop("model", UNSET)

        rating = d.pop("rating", UNSET)

        reason = d.pop("reason", UNSET)

        request_id = d.pop("request_id", UNSET)

        _verdict = d.pop("verdict", UNSET)
        verdict: FeedbackRequestVerdict | Unset
        if isinstance(_verdict, Unset):
            verdict = UNSET
        else:
            verdict = FeedbackRequestVerdict(_verdict)

        _view = d.pop("view", UNSET)
        view: FeedbackRequestView | Unset
        if isinstance(_view, Unset):
            view = UNSET
        else:
            view = FeedbackRequestView(_view)

        year = d.pop("year", UNSET)

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
