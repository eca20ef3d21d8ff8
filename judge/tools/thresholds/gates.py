"""OCR, graph matching and reading, evidence, and the gates' fractions.

Part of :mod:`judge.tools.thresholds` (units and conventions in its docstring; import from there).
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------
# OCR

OCR_MIN_CONFIDENCE = 0.5
"""Lines below this recognition score are dropped (rapidocr's own default text_score)."""

REREAD_MARGIN_FRAC = 0.25
REREAD_MIN_MARGIN_PX = 6
"""A box-like blob holding no text line after the whole image's reading is read again in a crop
of its box grown by this share of its shorter side (at least ``REREAD_MIN_MARGIN_PX`` of the
image's own pixels: the detector wants background round a label)."""

OCR_CONFIDENT = 0.85
"""A label read at or above this score is confident enough to fail a gate on."""

OCR_SURE = 0.97
"""A line read at or above this score is the figure's own text beyond doubt (blurred and small
text scores 0.5-0.95 with misread letters): where the reference holds one the candidate lacks,
its node is not merely unreadable there."""

# ------------------------------------------------------------------------------------------
# Graph matching

LABEL_MATCH_MAX_DISTANCE = 0.5
"""Normalised edit distance up to which two labels may be the same node (OCR slips are 0-0.2,
different words are above 0.6)."""

LABEL_CHANGED_MIN_DISTANCE = 0.2
"""Matched labels further apart than this (normalised edit distance) are a changed label when
both readings are confident: one OCR slip in a 6+ character word stays below it."""

POSITION_WEIGHT = 1.0
"""Weight of normalised position distance (0-1 after alignment) against label distance in the
matching cost: labels decide, position breaks ties and matches unlabelled nodes."""

UNLABELLED_MATCH_MAX_POSITION = 0.12
"""Unlabelled nodes match only when their aligned centres are this close (fraction of the
diagram's extent)."""

MIN_ALIGN_NODES = 3
"""A similarity fit (scale + translation) needs at least this many matched nodes."""

# ------------------------------------------------------------------------------------------
# Graph reading (judge/diagram.py)

HEAD_PROBE_TOLERANCE_FRAC = 0.02
"""A raster line end counts as the end of a deck connector when it lies this share of the image's
larger side from it (render), or from the same place relative to the matched node (reference)."""

HEAD_CONTRAST_RATIO = 1.5
HEAD_CONTRAST_MIN_SHAFTS = 2.0
"""A plain reference line read with no direction (no end passing the head tests) is read as pointing
to one end when that end is this many times thicker than the other (``Contact.thickness_px``, the
same line in the same image) and at least ``HEAD_CONTRAST_MIN_SHAFTS`` times its shaft: a small open
head the absolute tests miss (seed-6262 matplotlib figure 1 at 88 dpi: 4.65 px against 2.74 px on a
1.86 px shaft). The blunt start of a tapered ``fancy`` tail measures 1.3-1.7 shafts (seed-4242
figure 13: 12.9 px on a 7.7 px shaft, its tiny head 7.6 px), below the second bound."""

ACROSS_NODE_MARGIN_FRAC = 0.1
"""A deck line runs across a node when its straight course passes through the node's box less
this share of its width and height on each side (Stage 1: the render then reads a line between
the line's source and that node which the deck does not draw)."""

ENDPOINT_TOLERANCE_FRAC = 0.02
"""A free line's end lands on a shape when within 2 % of the slide's larger side of its box."""

TEXT_INK_DIFF = 80
"""Glyph pixels differ from the node's interior by more than this (anti-aliased rims less)."""

# ------------------------------------------------------------------------------------------
# OCR engine (judge/tools/ocr.py)

DET_MAX_SIDE = 960
"""Text detection runs on the image scaled to at most this side (recognition still reads the
full-resolution crops): 16 px labels of a 1600 px figure stay ~10 px tall, which the detector
finds, and detection is ~4x faster than on a 2000 px render."""


# ------------------------------------------------------------------------------------------
# Evidence (judge/tools/evidence.py, judge/tools/semantic.py)

PRESENT_MAX_DISTANCE = 0.2
"""A label is present in a text corpus when some substring is within this normalised edit
distance (one OCR slip per five characters)."""

PRESENT_MIN_CHARS = 3
"""Labels shorter than this (compacted) must equal a whole text to be present: "No" or "1"
occur inside many words."""

EXTRA_TREE_MATCH_DISTANCE = 0.3
"""An invented node read on the render is backed by the tree when a tree node's label is within
this normalised edit distance of the OCR reading."""

SAME_PLACE_MIN_OVERLAP_FRAC = 0.1
"""A render node and a reference node sit at one place when the render node's box, mapped onto
the reference, covers this share of the smaller box: more than a sliver (a node whose text is
small or blurred is often read in part, and the mapping by matched nodes is then loose)."""

UNCONFIRMED_CONFIDENCE_FACTOR = 0.3
"""A discrepancy the evidence refutes keeps this share of its reading confidence (recorded for
audit, never failing a gate)."""

ICON_MIN_BUSY_FRAC = 0.12
"""A leaf blob whose inside (text and rim excluded) differs from its fill over this share of
its pixels is a picture or logo, not a node: flat fills measure under 0.09 (text excluded),
photos and drawn logos 0.14-0.7."""

ICON_ATTACHED_MAX_FRAC = 0.15
"""Pieces off a blob's fill that reach its outer edge and are smaller than this share of it are
arrowheads and line stubs glued to its rim, not picture content (a matplotlib pill with two
arrowheads touching it read as a picture)."""

LEGIBLE_INK_MIN_PX = 4.0
"""Text whose ink is shorter than this, in a reference's own pixels, is too small for OCR: the
reference's reading it nowhere is no evidence that it is absent (an extra node is then not
confirmed). On our real figures OCR reads labels of 5 px ink (dev06 at 640 px), not of 3-3.5
px (dev06, dev14 at 400 px, ``--look tiny``)."""

BLANK_PLACE_MAX_INK_FRAC = 0.01
"""A reference place with under this share of ink pixels (``INK_DIFF`` from its own colour) is
blank: a node the deck draws there is added, whether or not its small text could be read."""

FONT_INK_FRAC = 0.7
"""A text line's ink is about this share of its font size tall (capitals and ascenders)."""

TEXT_BOX_INK_FRAC = 0.5
"""A text's ink height is about this share of its box's height per line (insets and leading
take the rest): the estimate where no reading measured it (object-tree nodes)."""

LOOK_AGAIN_MARGIN_FRAC = 0.5
"""Before an invented node is confirmed, the reference is read again at its place (its box,
mapped onto the reference and grown by this share of its size on every side): text detection
on the whole image misses a label now and then that a crop reads plainly."""

ICON_PLACE_MARGIN_FRAC = 0.5
"""A shape the deck adds where the reference shows a picture or logo (its centre, mapped onto
the reference, within the icon's box grown by this share of its size) approximates the icon:
never an invented node (icons may be approximated with native shapes or left out)."""

ICON_MIN_PIXELS = 50
ICON_BAND_SPAN_FRAC = 0.8
ICON_BAND_MAX_STD = 12.0
"""A region off a blob's fill spanning this share of its width or height, in one flat colour
(per-channel standard deviation up to this), is part of the shape (a cylinder's shaded cap, a
card's title band) and does not make the blob a picture."""

ICON_GRAPHIC_FRAC = 0.04
ICON_GRAPHIC_SIDE_FRAC = 0.15
"""A leaf blob holding one connected graphic (away from its fill, not text, not in its
outline colour) over ``ICON_GRAPHIC_FRAC`` of its inner pixels and at least
``ICON_GRAPHIC_SIDE_FRAC`` of the blob's shorter side in both directions is a picture or logo
(a chip photo with its maker's mark), however flat the rest."""
"""Blobs with fewer inner pixels than this are too small to tell (kept as nodes)."""

GLYPH_COVER_FRAC = 0.7
"""A blob with this share of its box inside one OCR line's box ..."""

GLYPH_MAX_LINE_HEIGHTS = 1.3
"""... and no taller than this many line heights is text (glyphs), not a node ..."""

GLYPH_MAX_EXTENT = 0.8
"""... unless it fills this share of its box with a fill and an outline of its own: glyphs
touching each other leave gaps, a box drawn tight round its label (matplotlib's ``bbox`` text)
does not. A filled box with no outline that tight is a label pill (text)."""

SLAB_MIN_OTHER_FRAC = 0.5
"""... and whose own colour covers at least half of it: a box is mostly its fill (a tight box round
its label: 58-81 % fill, our matplotlib figures and dev05's pills at every look). Glyphs are not:
bold light text on a saturated fill saved as JPEG comes out as one solid block (the ringing joins
the glyphs and rims them in a darker tone, which reads as an outline) whose "fill", the glyph
colour, covers 13-24 % of it; small dark text on white (a 640 px figure, a word's anti-aliased
glyphs merged into one blob with a grey "fill" and a dark "outline") 12-36 %."""

PILL_MIN_DE = 2.0
"""A text blob whose own colour is this CIEDE2000 from the colour round it is a box round its
label (a pill), not a cluster of glyphs (those are the colour round them: 0-1.4 on our
figures). Pills a line ends at with a head are nodes (``PILL_NODE_MIN_PARTNERS``)."""

PILL_HOLDS_LINE_FRAC = 0.7
"""... and a box round its label holds at least this share of one OCR line's box (OCR's boxes
run a little past a tight pill); a blob over part of a label only is letters fused with ink
under them (an arrowhead the label is laid over)."""

PILL_COVER_FRAC = 0.55
PILL_MAX_LINE_HEIGHTS = 1.5
"""A box with a fill of its own and no outline is a label pill (text) with this cover and
height against its OCR line (looser than ``GLYPH_*``: OCR's boxes shift by a few pixels with
JPEG noise and scale, and the lines later make a pill a node where they show it is one)."""

PILL_NODE_MIN_PARTNERS = 3
"""A pill (``PILL_MIN_DE``) that lines join to this many other nodes is a node too, with or
without heads (a label on a line joins the two nodes the line runs between, and the line meets
it on opposite sides: fewer partners make a node only where all its lines meet it on one side,
``arrows._one_side``)."""

INLIER_MEDIAN_FACTOR = 2.0
"""... or within this many median residuals of the first fit (Stage 3 refit)."""

ALIGN_LOST_FACTOR = 3.0
"""An alignment is lost when the pair's offset after the fit exceeds this many alignment
tolerances (jitter within a few tolerances is rendering, not layout)."""

NEIGHBOUR_GAP_FRAC = 0.35
"""Node pairs closer than this share of the diagram's extent are neighbours whose gap counts."""


# ------------------------------------------------------------------------------------------
# Stage 2 (render / text gate): the protocol's fractions

RENDER_DEFECT_MAX_FRAC = 0.30
"""Protocol: black regions, tearing, ghosting or blank blocks over 30 % of the figure fail."""

TEXT_DEFECT_MAX_FRAC = 0.50
"""Protocol: over 50 % of text boxes overflowing, overlapping or breaking improperly fail."""

BLACK_LEVEL = 40
"""A pixel darker than this on every channel is black ink (text is thin; blocks are counted by
area after opening)."""

DIFF_SHIFT_PX = 9
"""Panel pixels (1200x900 panels): ink found within this window of the other panel's ink is not
a difference (normalised panels of a faithful render align within a few pixels)."""

FIGURE_GROW_PX = 25
"""Panel pixels the union of both panels' ink is grown by to take the figure's area."""

BLOCK_MIN_PX = 15
"""Panel pixels: black or blank regions thinner than this (text, lines) are not blocks."""

# ------------------------------------------------------------------------------------------
# Text fit (from LibreOffice's SVG export)

OVERFLOW_TOLERANCE_FRAC = 0.06
"""Text extending above or below its shape by more than this share of the shape's height
overflows; below it is glyph overshoot and line spacing rounding."""

OVERFLOW_TOLERANCE_X_FRAC = 0.01
"""Sideways, text set wider than its shape by over 1 % of the shape's width overflows: advances
are measured with the font file itself, and a fitting label keeps LibreOffice's side insets."""

TEXT_OVERLAP_MIN_FRAC = 0.15
"""Two text frames' rendered text boxes overlap when the intersection exceeds this share of the
smaller one; kerning-level touching does not count."""

# ------------------------------------------------------------------------------------------
# Stage 3 (detail findings)

DISPLACEMENT_FRAC = 0.02
"""A matched node is displaced when its centre, after robust global alignment, is off by more
than 2 % of the diagram's larger extent (faithful renders stay under 0.1 %; a node moved by a
quarter cell is 3-4 %)."""

INLIER_FRAC = 0.01
"""Nodes within 1 % of the extent of the first global fit (or twice the median residual) take
part in the refit."""

SPACING_CHANGE_FRAC = 0.25
"""Gap between neighbouring nodes changed by more than 25 % (relative) is a spacing finding."""

ALIGN_TOLERANCE_FRAC = 0.012
"""Two node centres are aligned (same row/column) when within 1.2 % of the diagram's extent."""

PROPORTION_CHANGE_FRAC = 0.12
"""The diagram's aspect ratio changed by more than 12 % is a panel-proportion finding."""

FONT_SIZE_RATIO = 1.25
"""Text height differing from the reference's by more than this factor (either way), after
global scale, is a font-size finding (one step of the usual size ladder is ~1.2)."""

FONT_STYLE_RATIO = 1.3
"""Glyph stroke width differing by more than this factor (after global scale) is a font-style
finding: bold strokes are ~1.5x regular ones; rendering differences stay within ~1.15."""

COLOUR_DE = 12.0
"""CIEDE2000 above this is a different colour (JND is ~2.3; anti-aliasing and JPEG stay under
8; a different hue or clearly different shade is above 15)."""

CORNER_RADIUS_FRAC = 0.06
"""Corner radius (fraction of the box's short side) differing by more than this is a finding;
square vs the default rounded rectangle (0.17) is well above it."""

LINE_WIDTH_RATIO = 1.5
"""Line width (measured at half contrast, after global scale) differing by more than this factor
is a line-width finding: faithful renders measure 0.75-1.1x the reference, doubled lines ~2x."""
