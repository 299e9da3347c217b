"""Contains all the data models used in inputs/outputs"""

from .account_data import AccountData
from .account_pricing import AccountPricing
from .account_response import AccountResponse
from .account_response_links import AccountResponseLinks
from .angle_options import AngleOptions
from .batch_image_url_request import BatchImageUrlRequest
from .candidate import Candidate
from .catalog_make import CatalogMake
from .catalog_model import CatalogModel
from .catalog_search_hit import CatalogSearchHit
from .catalog_source import CatalogSource
from .catalog_summary import CatalogSummary
from .checkout_data import CheckoutData
from .checkout_request import CheckoutRequest
from .checkout_request_credits import CheckoutRequestCredits
from .checkout_response import CheckoutResponse
from .color import Color
from .color_match_body import ColorMatchBody
from .color_option import ColorOption
from .confidence import Confidence
from .custom_colors import CustomColors
from .delivery_ttl import DeliveryTtl
from .delivery_url import DeliveryUrl
from .device_code_data_body import DeviceCodeDataBody
from .device_code_json_body import DeviceCodeJsonBody
from .device_code_response import DeviceCodeResponse
from .device_error import DeviceError
from .device_token_data_body import DeviceTokenDataBody
from .device_token_data_body_grant_type import DeviceTokenDataBodyGrantType
from .device_token_json_body import DeviceTokenJsonBody
from .device_token_json_body_grant_type import DeviceTokenJsonBodyGrantType
from .device_token_response import DeviceTokenResponse
from .display import Display
from .events_accepted import EventsAccepted
from .extracted import Extracted
from .feedback_data import FeedbackData
from .feedback_request import FeedbackRequest
from .feedback_request_color_type_0 import FeedbackRequestColorType0
from .feedback_request_color_type_3_type_0 import FeedbackRequestColorType3Type0
from .feedback_request_color_type_4_type_0 import FeedbackRequestColorType4Type0
from .feedback_request_verdict_type_0 import FeedbackRequestVerdictType0
from .feedback_request_view_type_0 import FeedbackRequestViewType0
from .feedback_response import FeedbackResponse
from .format_ import Format
from .format_auto import FormatAuto
from .format_choice import FormatChoice
from .format_option import FormatOption
from .framing_options import FramingOptions
from .get_image_background_type_0 import GetImageBackgroundType0
from .get_image_color_type_0 import GetImageColorType0
from .get_image_finish import GetImageFinish
from .get_image_fit import GetImageFit
from .get_image_format import GetImageFormat
from .get_image_response import GetImageResponse
from .get_image_scale import GetImageScale
from .get_image_size import GetImageSize
from .get_image_view import GetImageView
from .get_legacy_image_background_type_0 import GetLegacyImageBackgroundType0
from .get_legacy_image_color_type_0 import GetLegacyImageColorType0
from .get_legacy_image_finish import GetLegacyImageFinish
from .get_legacy_image_fit import GetLegacyImageFit
from .get_legacy_image_format import GetLegacyImageFormat
from .get_legacy_image_mode import GetLegacyImageMode
from .get_legacy_image_scale import GetLegacyImageScale
from .get_legacy_image_size import GetLegacyImageSize
from .get_legacy_image_view import GetLegacyImageView
from .get_spin_color_type_0 import GetSpinColorType0
from .get_spin_finish import GetSpinFinish
from .get_spin_format import GetSpinFormat
from .get_spin_layout import GetSpinLayout
from .get_spin_response import GetSpinResponse
from .get_spin_scale import GetSpinScale
from .get_spin_size import GetSpinSize
from .head_image_background_type_0 import HeadImageBackgroundType0
from .head_image_color_type_0 import HeadImageColorType0
from .head_image_finish import HeadImageFinish
from .head_image_fit import HeadImageFit
from .head_image_format import HeadImageFormat
from .head_image_response import HeadImageResponse
from .head_image_scale import HeadImageScale
from .head_image_size import HeadImageSize
from .head_image_view import HeadImageView
from .head_legacy_image_background_type_0 import HeadLegacyImageBackgroundType0
from .head_legacy_image_color_type_0 import HeadLegacyImageColorType0
from .head_legacy_image_finish import HeadLegacyImageFinish
from .head_legacy_image_fit import HeadLegacyImageFit
from .head_legacy_image_format import HeadLegacyImageFormat
from .head_legacy_image_mode import HeadLegacyImageMode
from .head_legacy_image_scale import HeadLegacyImageScale
from .head_legacy_image_size import HeadLegacyImageSize
from .head_legacy_image_view import HeadLegacyImageView
from .head_spin_color_type_0 import HeadSpinColorType0
from .head_spin_finish import HeadSpinFinish
from .head_spin_format import HeadSpinFormat
from .head_spin_layout import HeadSpinLayout
from .head_spin_response import HeadSpinResponse
from .head_spin_scale import HeadSpinScale
from .head_spin_size import HeadSpinSize
from .hit_kind import HitKind
from .image_request import ImageRequest
from .image_request_background_type_0 import ImageRequestBackgroundType0
from .image_request_background_type_3_type_0 import ImageRequestBackgroundType3Type0
from .image_request_background_type_4_type_0 import ImageRequestBackgroundType4Type0
from .image_request_color_type_0 import ImageRequestColorType0
from .image_request_color_type_3_type_0 import ImageRequestColorType3Type0
from .image_request_color_type_4_type_0 import ImageRequestColorType4Type0
from .image_request_finish_type_0 import ImageRequestFinishType0
from .image_request_fit_type_0 import ImageRequestFitType0
from .image_request_format_type_0 import ImageRequestFormatType0
from .image_request_scale_type_0 import ImageRequestScaleType0
from .image_request_size_type_0 import ImageRequestSizeType0
from .image_request_view_type_0 import ImageRequestViewType0
from .image_url_data import ImageUrlData
from .image_url_response import ImageUrlResponse
from .image_urls_response import ImageUrlsResponse
from .key_info import KeyInfo
from .makes_for_year import MakesForYear
from .match_kind import MatchKind
from .mcp_body import McpBody
from .mcp_body_params_type_0 import McpBodyParamsType0
from .mcp_response_200 import McpResponse200
from .models_for_make import ModelsForMake
from .models_for_make_id import ModelsForMakeId
from .options_document import OptionsDocument
from .options_document_links import OptionsDocumentLinks
from .options_document_paints import OptionsDocumentPaints
from .options_limits import OptionsLimits
from .options_pricing import OptionsPricing
from .options_response import OptionsResponse
from .pack import Pack
from .paint_option import PaintOption
from .portal_data import PortalData
from .portal_response import PortalResponse
from .problem import Problem
from .problem_links_type_0 import ProblemLinksType0
from .resolve_data import ResolveData
from .resolve_request import ResolveRequest
from .resolve_response import ResolveResponse
from .resolve_result import ResolveResult
from .resolved_params import ResolvedParams
from .scope_name import ScopeName
from .search_results import SearchResults
from .size_preset import SizePreset
from .sizes import Sizes
from .sizes_presets import SizesPresets
from .spin_frame import SpinFrame
from .spin_manifest import SpinManifest
from .spin_manifest_response import SpinManifestResponse
from .url_billing import UrlBilling
from .urls_billing import UrlsBilling
from .usage import Usage
from .vehicle_params import VehicleParams
from .vehicles_response import VehiclesResponse
from .view import View
from .view_option import ViewOption
from .year_range import YearRange
from .years import Years
from .years_for_model import YearsForModel

__all__ = (
    "AccountData",
    "AccountPricing",
    "AccountResponse",
    "AccountResponseLinks",
    "AngleOptions",
    "BatchImageUrlRequest",
    "Candidate",
    "CatalogMake",
    "CatalogModel",
    "CatalogSearchHit",
    "CatalogSource",
    "CatalogSummary",
    "CheckoutData",
    "CheckoutRequest",
    "CheckoutRequestCredits",
    "CheckoutResponse",
    "Color",
    "ColorMatchBody",
    "ColorOption",
    "Confidence",
    "CustomColors",
    "DeliveryTtl",
    "DeliveryUrl",
    "DeviceCodeDataBody",
    "DeviceCodeJsonBody",
    "DeviceCodeResponse",
    "DeviceError",
    "DeviceTokenDataBody",
    "DeviceTokenDataBodyGrantType",
    "DeviceTokenJsonBody",
    "DeviceTokenJsonBodyGrantType",
    "DeviceTokenResponse",
    "Display",
    "EventsAccepted",
    "Extracted",
    "FeedbackData",
    "FeedbackRequest",
    "FeedbackRequestColorType0",
    "FeedbackRequestColorType3Type0",
    "FeedbackRequestColorType4Type0",
    "FeedbackRequestVerdictType0",
    "FeedbackRequestViewType0",
    "FeedbackResponse",
    "Format",
    "FormatAuto",
    "FormatChoice",
    "FormatOption",
    "FramingOptions",
    "GetImageBackgroundType0",
    "GetImageColorType0",
    "GetImageFinish",
    "GetImageFit",
    "GetImageFormat",
    "GetImageResponse",
    "GetImageScale",
    "GetImageSize",
    "GetImageView",
    "GetLegacyImageBackgroundType0",
    "GetLegacyImageColorType0",
    "GetLegacyImageFinish",
    "GetLegacyImageFit",
    "GetLegacyImageFormat",
    "GetLegacyImageMode",
    "GetLegacyImageScale",
    "GetLegacyImageSize",
    "GetLegacyImageView",
    "GetSpinColorType0",
    "GetSpinFinish",
    "GetSpinFormat",
    "GetSpinLayout",
    "GetSpinResponse",
    "GetSpinScale",
    "GetSpinSize",
    "HeadImageBackgroundType0",
    "HeadImageColorType0",
    "HeadImageFinish",
    "HeadImageFit",
    "HeadImageFormat",
    "HeadImageResponse",
    "HeadImageScale",
    "HeadImageSize",
    "HeadImageView",
    "HeadLegacyImageBackgroundType0",
    "HeadLegacyImageColorType0",
    "HeadLegacyImageFinish",
    "HeadLegacyImageFit",
    "HeadLegacyImageFormat",
    "HeadLegacyImageMode",
    "HeadLegacyImageScale",
    "HeadLegacyImageSize",
    "HeadLegacyImageView",
    "HeadSpinColorType0",
    "HeadSpinFinish",
    "HeadSpinFormat",
    "HeadSpinLayout",
    "HeadSpinResponse",
    "HeadSpinScale",
    "HeadSpinSize",
    "HitKind",
    "ImageRequest",
    "ImageRequestBackgroundType0",
    "ImageRequestBackgroundType3Type0",
    "ImageRequestBackgroundType4Type0",
    "ImageRequestColorType0",
    "ImageRequestColorType3Type0",
    "ImageRequestColorType4Type0",
    "ImageRequestFinishType0",
    "ImageRequestFitType0",
    "ImageRequestFormatType0",
    "ImageRequestScaleType0",
    "ImageRequestSizeType0",
    "ImageRequestViewType0",
    "ImageUrlData",
    "ImageUrlResponse",
    "ImageUrlsResponse",
    "KeyInfo",
    "MakesForYear",
    "MatchKind",
    "McpBody",
    "McpBodyParamsType0",
    "McpResponse200",
    "ModelsForMake",
    "ModelsForMakeId",
    "OptionsDocument",
    "OptionsDocumentLinks",
    "OptionsDocumentPaints",
    "OptionsLimits",
    "OptionsPricing",
    "OptionsResponse",
    "Pack",
    "PaintOption",
    "PortalData",
    "PortalResponse",
    "Problem",
    "ProblemLinksType0",
    "ResolveData",
    "ResolveRequest",
    "ResolveResponse",
    "ResolveResult",
    "ResolvedParams",
    "ScopeName",
    "SearchResults",
    "SizePreset",
    "Sizes",
    "SizesPresets",
    "SpinFrame",
    "SpinManifest",
    "SpinManifestResponse",
    "UrlBilling",
    "UrlsBilling",
    "Usage",
    "VehicleParams",
    "VehiclesResponse",
    "View",
    "ViewOption",
    "YearRange",
    "Years",
    "YearsForModel",
)
