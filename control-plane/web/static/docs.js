// /docs: renders the service's OpenAPI document with the vendored Redoc bundle
// (static/vendor/redoc/redoc.standalone.js, loaded just before this file). Everything is local:
// the bundle is patched not to load its logo from a CDN, the fonts are the system's, and the
// only request made is the same-origin GET of the spec (connect-src 'self').
(function () {
  "use strict";

  var el = document.getElementById("api-reference");
  if (!el) return;
  var specUrl = el.getAttribute("data-spec-url") || "/api/v1/openapi.json";

  function fail(message) {
    var loading = document.getElementById("docs-loading");
    if (!loading) return;
    loading.textContent = "";
    var p = document.createElement("p");
    p.textContent = message + " ";
    var a = document.createElement("a");
    a.href = specUrl;
    a.textContent = "Open the OpenAPI document";
    p.appendChild(a);
    loading.appendChild(p);
  }

  if (!window.Redoc || typeof window.Redoc.init !== "function") {
    fail("The API reference viewer did not load.");
    return;
  }

  var sans = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
  var mono = 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace';

  var options = {
    // The sticky site header stays on top: Redoc's sidebar and anchors sit below it.
    scrollYOffset: ".site-header",
    expandResponses: "200,201",
    jsonSampleExpandLevel: 3,
    hideHostname: false,
    nativeScrollbars: true,
    sortPropsAlphabetically: false,
    menuToggle: true,
    theme: {
      spacing: { unit: 5, sectionHorizontal: 32, sectionVertical: 28 },
      breakpoints: { small: "50rem", medium: "75rem", large: "105rem" },
      colors: {
        primary: { main: "#4f46e5" },
        success: { main: "#067647" },
        warning: { main: "#b54708" },
        error: { main: "#b42318" },
        text: { primary: "#1f2937", secondary: "#5b6476" },
        border: { dark: "#cfd5df", light: "#e4e7ec" },
        http: {
          get: "#067647",
          post: "#4f46e5",
          put: "#b54708",
          options: "#5b6476",
          patch: "#b54708",
          delete: "#b42318",
          basic: "#5b6476",
          link: "#0e7090",
          head: "#5b6476"
        }
      },
      typography: {
        fontSize: "15px",
        lineHeight: "1.6",
        fontFamily: sans,
        smoothing: "antialiased",
        headings: { fontFamily: sans, fontWeight: "650" },
        code: {
          fontSize: "13px",
          fontFamily: mono,
          color: "#b42318",
          backgroundColor: "rgba(15, 20, 32, 0.05)",
          wrap: true
        },
        links: { color: "#4338ca", visited: "#4338ca", hover: "#312e81" }
      },
      sidebar: {
        width: "280px",
        backgroundColor: "#f7f8fa",
        textColor: "#334155",
        activeTextColor: "#4338ca"
      },
      rightPanel: { backgroundColor: "#141a2a", width: "42%", textColor: "#e3e8f2" },
      codeBlock: { backgroundColor: "#0f1420" },
      fab: { backgroundColor: "#4f46e5", color: "#ffffff" }
    }
  };

  try {
    window.Redoc.init(specUrl, options, el, function (err) {
      if (err) fail("The API reference could not be rendered.");
    });
  } catch (e) {
    fail("The API reference could not be rendered.");
  }
})();
