"""Measurement tools the judge calls (crop, segmentation, geometry, OCR, object tree, ...)."""
