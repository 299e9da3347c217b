-- How a signed delivery URL frames its image (background, fit, trim,
-- padding): vis_protocol::Framing's text form, empty for the plain output
-- (every URL minted before framing existed).
ALTER TABLE delivery_urls ADD COLUMN framing TEXT NOT NULL DEFAULT '';
