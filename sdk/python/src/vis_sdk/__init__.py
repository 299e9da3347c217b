"""The vehicle image service's Python SDK.

``Vis`` wraps the client that openapi-python-client generates from
docs/openapi.json (``vis_sdk.generated``) with typed helpers; every other
operation is a generated function taking ``client=vis.client``::

    from vis_sdk import Vis
    vis = Vis("http://127.0.0.1:8080", api_key="vis_…")
    image = vis.get_image("toyota", "camry", 2019, color="red", format="webp")
"""

from ._client import (
    Image,
    MintedUrls,
    NotModified,
    Vis,
    VisApiError,
    delivery_token,
    new_idempotency_key,
)

__all__ = [
    "Image",
    "MintedUrls",
    "NotModified",
    "Vis",
    "VisApiError",
    "delivery_token",
    "new_idempotency_key",
]
