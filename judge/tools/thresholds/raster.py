"""Image basics and node blobs: what is ink, what is a node, what a node's outline looks like.

Part of :mod:`judge.tools.thresholds` (units and conventions in its docstring; import from there).
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------
# Raster basics

INK_DIFF = 28
"""Max channel difference from the local background that counts as ink. Higher than the
preparation's content threshold (10) because anti-aliased edges and JPEG noise of references
otherwise turn box interiors speckled; real strokes and fills differ by far more."""

OCR_SMOOTH_MAX_SIDE_PX = 500
"""An image whose longer side is at most this is read by OCR enlarged smoothly (bicubic, to the
reading frame): at 400 px OCR on the image's own pixels missed most labels (our real figures,
``--look tiny``: faithful decks passed 26 of 48 before). At 640 px it reads them, and the smoothed
reading there read a logo's wordmark as a label (dev06), so larger images keep their own pixels."""

READ_MIN_SIDE_PX = 700
READ_MAX_ZOOM = 3
"""An image whose longer side is under READ_MIN_SIDE_PX (the smallest of the figures the
reading rules were developed on is 727 px) is read enlarged by the smallest whole factor, at
most READ_MAX_ZOOM, that brings it there, each pixel repeated (no new colours: every colour and
flatness rule sees the figure's own pixels). In a 640 px figure a head is 4-5 px, too few for
the head, dash and outline rules, many of whose sizes are fixed pixels. The tools' image frame
stays the image's own pixels."""

LIGHT_FILL_DIFF = 8
LIGHT_FILL_MAX_GRADIENT = 2
LIGHT_FILL_MIN_PX = 9
"""A light flat fill (#EEE boxes on white, 17 below the background) is ink where it differs from the
background by more than LIGHT_FILL_DIFF, is flat (3x3 gradient at most LIGHT_FILL_MAX_GRADIENT) over
LIGHT_FILL_MIN_PX square stretches: anti-aliasing, JPEG ringing and soft shadows are not flat."""

TEXT_SLOT_MIN_INK_FRAC = 0.08
TEXT_SLOT_MAX_SIDES = 2.0
"""A hole thinner than TEXT_SLOT_MAX_SIDES smallest-node sides (one or two lines of text) is a
light box's knocked-out label, and filled, when at least TEXT_SLOT_MIN_INK_FRAC of it (clear
of its rim) is glyph ink (text lines are 15-35 % ink); a gap between lines holds none."""

TEXT_SLOT_RIM_PX = 5
"""Width (px) of the band along a hole's contour left out when its ink is measured (the
contour runs over the ink round the hole)."""

LINE_INK_DIFF = 60
"""Lines are read from stronger ink: LibreOffice's default soft shadows reach a difference of
about 47 from white, connector strokes are far darker (black or saturated colours)."""

SHADOW_MAX_SPREAD = 12
"""Shadows are neutral grey: channel spread at most this (pastel fills have 20+)."""

SHADOW_MAX_DIFF = 64
"""... light (within this of the background) ..."""

SHADOW_MIN_GRADIENT = 4
"""... and blurred: a 3x3 grey-level gradient of at least this (uniform fills have ~0)."""

LINE_OPEN_PER_KPX = 14.0
"""Opening kernel (px per 1000 px of the short side) that removes lines, text strokes and most
arrowheads but keeps node boxes: lines are 1-4 px, text strokes 2-4 px and LibreOffice's
default arrowheads 7-8 px at 720 px; boxes are 30+ px thick."""

MIN_NODE_SIDE_PER_KPX = 28.0
"""Smallest node side (px per 1000 px of the short side): a one-line label box at the smallest
legible font is about 30 px tall at 720 px; arrowheads (10-20 px) stay below it."""

OWN_MIN_REGION_FRAC = 0.5
OWN_RIM_SLACK_PX = 2.0
OWN_MIN_KEEP_FRAC = 0.85
OWN_PIECE_MAX_SIDES = 3.0
"""A node's own pixels (nodes.own_mask, erased before lines are read): its fill-coloured region
(with the label it encloses) must be at least OWN_MIN_REGION_FRAC of its mask; what lies
farther from that region than the rim's median distance plus OWN_RIM_SLACK_PX (its outline),
in pieces no longer than OWN_PIECE_MAX_SIDES smallest node sides (a band along a whole side is
a shadow or a border), is an arrowhead or a line's stub stuck to it, cut only when that keeps
OWN_MIN_KEEP_FRAC of the mask."""

MIN_NODE_EXTENT = 0.45
"""Smallest area / bounding-box-area of a node blob: rectangles ~1, ellipses 0.785, diamonds 0.5;
below this a blob is a merge of lines and boxes, not a node."""

MERGED_OPEN_FACTOR = 2
"""Such a merge is opened again with a kernel this many times the line opening's: lines
thicker than the first opening (matplotlib arrows of 3-4 pt at 100 dpi, 10-14 px) that join
their nodes into one sprawling blob are parted from them (the nodes, 70+ px thick, stay)."""

MERGED_OPEN_MAX_FACTOR = 5
"""... and what still sprawls after that is opened again with discs growing by one line opening
up to this many: a tapered arrow's tail is fatter than its line (seed-4343 and seed-2525
matplotlib figure 13: five fat tails leaving an ellipse kept it in one blob with them, and it
was no node)."""

HOLE_FILL_MIN_EXTENT = 0.60
"""A hole in the ink (the interior of an outlined box or panel) is filled only when it covers this
share of its bounding box: a panel's hole loses the nodes and line loops attached inside it
(up to ~30 %); loops closed through nodes are rejected separately (nodes straddle them) ..."""

HOLE_CONVEX_MIN_SOLIDITY = 0.95
"""... or, down to ``MIN_NODE_EXTENT`` of its box, when it is convex: it fills this share of its
convex hull (an outlined diamond's interior fills half its box)."""

STRADDLE_TEXT_MIN_OUTSIDE_FRAC = 0.25
"""An OCR line centred in a node's box with this share of its own box outside the node's
runs out across the outline: not the node's text when the node holds text of its own it is
not aligned with (``TEXT_ALIGN_MAX_HEIGHTS``), but an edge label laid over the border."""

TEXT_ALIGN_MAX_HEIGHTS = 0.5
"""Two lines of text are aligned (one label's lines) when their centres, left edges or right
edges lie within this many line heights of each other."""

NODE_CORE_MIN_MIRROR = 0.6
"""What is node-thick of a solid (its opening by a node's least side) is a node that may sit on
a loop of lines only when it matches its own left-right or up-down mirror image on this share
of their union: node shapes do (filled boxes 0.93-1.0 on the six references printed), the
fat stub of a tapered tail leaving an outlined node on a slant or a curve does not (seed-2525
matplotlib figure 13: 0.47, and the outlined ellipse "Splitter" it left stayed unfilled, and
no node)."""

STRADDLE_MAX_INSIDE_FRAC = 0.6
"""A solid straddling a hole's box shows a loop of lines through nodes only when less than this
share of its box lies inside the hole's box: a node on a loop lies mostly outside the loop,
whereas fat lines meeting at an outlined node's rim make a solid mostly within the node's box
(seed-7373 matplotlib figure 13: three 5 px curves leaving an ellipse's bottom-left, 75 %
inside, kept "Labeler" from being filled, so it was no node)."""

CYLINDER_CAP_MATCH_FRAC = 0.08
"""A hole straddling a bigger hole's top or bottom end (left or right) is that cylinder body's cap,
not a node on a loop of lines, when its left edge and width match the body's within this share of
the body's width (top and height, for a cylinder lying down; hand-drawn caps are a little off)."""

LID_MIN_SPAN_FRAC = 0.6
LID_MAX_DEPTH_FRAC = 0.35
LID_MAX_GAP_FRAC = 0.05
"""A flat ellipse inside a node, against one of its ends (within the inner scan's erosion and
``LID_MAX_GAP_FRAC`` of the node's side), spanning this share of the node's width and at most
``LID_MAX_DEPTH_FRAC`` of its height, is the node's lid (a cylinder's top in a lighter shade),
not a node inside it. A seam in the lid's colour runs the cylinder's whole width, while the
inner scan's erosion eats into the lid's pointed ends: 0.74 of the width on seed-2929 figure 6's
render, against 1.0 for a cap hole (``CYLINDER_CAP_MATCH_FRAC``)."""

CORNER_SHARP_PX = 1.5
"""Diagonal inset (px) of a square corner after anti-aliasing; insets above it are rounding."""

# ------------------------------------------------------------------------------------------
# Node blobs (judge/tools/nodes.py)

MAX_DEPTH = 4
"""Nesting levels scanned (slide > panel > sub-panel > node > inner box)."""

HEAD_MAX_EXTENT = 0.62
"""Triangles fill half their box; a small blob below this extent is an arrowhead."""

HEAD_MAX_SIDE_FACTOR = 2.0
"""... when its longest side is under this many smallest-node sides (nodes are far larger)."""

SOLID_HEAD_MAX_EXTENT = 0.72
"""A solid blob with nothing inside below this extent is shaped like a triangle (an
anti-aliased head with a stub of shaft fills up to 0.7 of its box), not a disc (0.785)."""

SOLID_HEAD_MAX_SIDE_FACTOR = 6.0
"""A solid blob shaped like a triangle (extent under ``SOLID_HEAD_MAX_EXTENT``) with nothing
inside is line ink up to this many smallest node sides long: a big arrowhead, a tapered arrow's body
(seed-5151 matplotlib figures: ``arrow`` heads and ``fancy`` bodies read as unlabelled nodes)."""

HEAD_MIN_TRIANGLE_FILL = 0.67
"""... or one filling this share of the smallest triangle round it, at those sizes: a solid head
with a stub of its shaft fills 0.74-0.94 (seed-6262 matplotlib figure 9: diagonal heads 41-46 px
with extents of 0.72-0.75 read as unlabelled nodes), a disc 0.6, a square 0.5. A wide head
with the stub of a slanted 8 px shaft fills 0.695 (seed-7171 matplotlib figure 2, 44 px
heads read as unlabelled nodes): the bound sits halfway between a disc (0.6) and the least
head measured before that one (0.74), under it."""

STROKE_MIN_RING_FRAC = 0.4
"""Share of the blob's perimeter (in pixels) that must differ from the fill to call it an outline
(text near the edge or an attached line covers far less)."""

BG_SAME_DE = 6.0
"""A blob fill within this CIEDE2000 of the surrounding background is 'no fill' (outline only)."""

# ------------------------------------------------------------------------------------------
# Named literals of the readers (nodes.py, graphread.py)

RECT_MIN_EXTENT = 0.9
"""A blob filling this share of its box is a rectangle (rounded or not); below, a small one
with nothing inside is an arrowhead with a stub of shaft."""

ELLIPSE_MIN_EXTENT = 0.7
"""Extent of an ellipse (0.785) down to this; diamonds (0.5) lie below it."""

ROUNDED_MIN_RADIUS_FRAC = 0.08
"""A rectangle whose corner radius exceeds this share of its short side is rounded."""

HEAD_MAX_CONTENT_FRAC = 0.05
"""A small non-rectangular blob with under this share of non-fill pixels inside is an
arrowhead (text or an outline inside would make it a small node)."""

POINT_FIT_FRAC = 0.15
"""A node's outlines are followed over this share of its size at each end, and over the next as
much, to tell whether the trimming opening cut a point off there (``blobtests.restore_points``)."""

POINT_MIN_SLOPE = 0.2
"""Both outlines must close in on each other at least this steeply (rows per column) at an end
for it to be a cut point (a diamond 2:1 has 0.5; a rectangle's sides 0)."""

POINT_STRAIGHT_MIN_RATIO = 0.7
"""... and a cut point's outlines keep at least this share of their slope over the next stretch
(a diamond's: 0.95-1.0 on our figures and dev10's; a pill's or an ellipse's rounded end
flattens out: 0.2)."""

POINT_MAX_RESIDUAL_PX = 1.5
"""A cut point's outlines are straight: neither strays further than this from its fitted line
(a guard against ragged outlines; over so short a stretch a small rounded end's arc may stay
within it, and ``POINT_STRAIGHT_MIN_RATIO`` is what tells it from a point)."""

POINT_TIP_MIN_FRAC = 0.1
"""A point is fitted on the ink the opening cut off (``blobtests.restore_points``, where the
body's outline is no straight taper) only when that ink runs on past the body for at least this
share of the body's length: the opening cuts about a sixth of a diamond's width off each point,
and only the last 3 % off an ellipse's ends, whose short arcs pass for straight (Graphviz
seed-4848 figure 5: outlined ellipses grown by 7 px at each end took in heads by them)."""

POINT_TOL_PX = 1.5
"""Ink this close outside the carried-on outlines of a cut point is still the node's (an
anti-aliased outline)."""

CROSSING_MIN_ARMS = 3
"""A notched blob is lines crossing only when at least this many pieces of its ink run on as far
again as its longer side: a crossing's four arms, not a glyph or a part of a logo, whose
strokes stop short."""

CROSSING_MIN_NOTCH_FRAC = 0.12
"""A small non-rectangular blob with nothing inside whose core is notched this much by the
background (or its blends with the fill) reaching in from its edge is no node but lines
crossing at a shallow angle, their acute angles filled by the closings (seed-4141 matplotlib
figure 3: 0.21 at a 732-px crossing of 4.5-px lines)."""

TREE_MIN_SIDE_FRAC = 0.01
"""Object-tree shapes thinner than this share of the render's short side are not nodes."""

TEXT_MASK_MAX_CHANNEL_DIFF = 5
"""A shape holding text with no outline and a fill this close to the slide's background (no
channel further than this; white when the background is unknown) only hides what is under its
text (an edge label set on its line): text, not a node."""

PANEL_AREA_RATIO = 2.5
"""A tree shape holding two or more shapes is a panel when its area exceeds the largest held
shape's by this factor (a node with a text box inside is not a panel)."""

ROUNDRECT_DEFAULT_RADIUS = 0.16667
"""PowerPoint's default roundRect adjustment (corner radius over the short side)."""

DEFAULT_LINE_WIDTH_PT = 0.75
"""Line width when the tree does not state one (PowerPoint's default)."""

UNLABELLED_LABEL_COST = 0.5
"""Label cost of pairing a node with an unlabelled one (position decides)."""

TEXT_ERASE_MARGIN_FRAC = 0.35
"""Free text is erased from the line ink glyph by glyph: ink inside its OCR box grown by this
share of its letters' height (``OcrLine.text_height``) on every side, in pieces that end inside
that window. A piece that leaves the window is a line passing the label, and stays (labels sit
right beside lines)."""

GLYPH_BRIDGE_EXTRA_PX = 2.0
"""A line running through a label's box with letters touching it keeps, inside the box, the ink
within half its width and this many pixels of the straight segment between its two cut ends (a
Graphviz spline bends a pixel or two over a label's length); the letters go."""

GLYPH_OPEN_MIN_RATIO = 1.6
"""Lines at least this many times as thick as a label's letters (their strokes measured on the
letters standing free) are parted from letters touching them by an opening between the two
widths; thinner ones only where one line runs through the label's box (a straight bridge)."""

GLYPH_LINE_RING_MARGINS = 3
"""The width of lines running through a label's window is measured on their ink outside the
window, out to this many erasing margins (``TEXT_ERASE_MARGIN_FRAC``) beyond it."""

TEXT_NODE_PIECE_MIN_HEIGHTS = 1.5
"""A piece of ink in a label's erasing window that leaves an erased node and runs at least this
many of the label's letter heights (``OcrLine.text_height``: OCR's padded box) is a line's end,
not a letter, and stays: a short arrow from a node runs past an edge label within its window
(seed-6969 matplotlib figure 3: "tokens" between two 66 px arrows leaving "Deploy", both erased
as its letters). A letter set against a node (an edge label touching a diamond's tip) is
shorter."""

TEXT_PAST_BOX_PX = 2
"""A piece of ink in a label's erasing window that runs this far past the label's OCR box on
both sides (left and right, or top and bottom) is no letter of it but a short line beside it,
and stays."""

CHAR_WIDTH_EMS = 0.55
"""A glyph's mean advance in text heights (sans-serif text: 0.5-0.6), to tell a line of text set
at an angle (an edge label along a diagonal arrow) from a level one by its box's proportions."""

ROTATED_BOX_MIN_RATIO = 1.6
"""An OCR line box this many times taller than its text height (estimated from the box and its
characters, ``CHAR_WIDTH_EMS``) holds text set at an angle: its height is the slanted run's,
not the letters' (dev16: "download offloaded tenant" along a diagonal arrow, 204 px tall for
30 px letters). Its erasing margin is measured on the letters (``TEXT_ERASE_MARGIN_FRAC``)."""

REMNANT_WIDE_REACHES = 2.0
"""A head window that holds nothing but a node outline's V is looked at again out to this many
reaches from the node: the V of a sharp tip the node finder's opening cut off runs a whole
window long, and the head sits past its apex."""

LOCAL_SHAFT_BAND = 2.0
LOCAL_SHAFT_MIN_WINDOWS = 0.5
"""An end's head is measured against the shaft just behind its head window, out to
``LOCAL_SHAFT_BAND`` windows from the end, where that stretch holds at least
``LOCAL_SHAFT_MIN_WINDOWS`` windows' length of the line's ridge (else the whole line's median):
a tapered ``fancy`` arrow's tail is as thick as the shaft behind it, its head twice the thin
shaft before it."""

NECK_START_HALVES = 1.2
NECK_BAND_HALVES = 2.0
NECK_MIN_HALVES = 1.0
"""An end's head is also measured against its neck: the line's thickest point from
``NECK_START_HALVES`` of the head's half-widths past its widest point (past its base) to
``NECK_BAND_HALVES`` half-widths further, where that stretch holds at least ``NECK_MIN_HALVES``
half-widths of pixels: a tapered arrow's small head sits on the thin end of a shaft that is
thicker a window back (seed-3737 matplotlib figure 6: a 19 px head on a shaft tapering
13 -> 6 px)."""

BEHIND_BAND_HALVES = (4.0, 8.0)
"""An end's thickness is compared with the line's a few end thicknesses back: the thickest
point from 4 to 8 of the end's half-widths (two to four end thicknesses) from it
(``headtests.behind``), past any head. A reference line read with no direction points to its
thicker end only where that end stands out from it (``HEAD_CONTRAST_RATIO``): a tapered tail's
blunt start thins gradually (seed-7878 matplotlib figure 13: 6.6 px at the tail, 5.7 px two
to four thicknesses back; a small open head, seed-6262 figure 1: 4.65 px against 2.74 px)."""

TAPER_MIN_RATIO = 1.2
"""A line joining two nodes whose shaft, between its two head windows, is this many times
thicker in the half by one end than in the half by the other tapers: a ``fancy`` or ``wedge``
arrow, which narrows from its tail to its head. Its thick end is no head, however wide its
cut end looks (tails leaving side by side, a tail cut obliquely by an ellipse). Measured on our
matplotlib seeds 6363, 8484 and 9595 (medians of the distance transform along the ridge):
tapered lines 1.18-1.41, plain lines 1.0-1.08."""

TAPER_MIN_HALF_WIDTHS = 3.0
TAPER_MIN_SHAFT_PX = 2.0
"""... measured only where each half holds at least ``TAPER_MIN_HALF_WIDTHS`` line widths of
ridge and the thinner half's median is at least ``TAPER_MIN_SHAFT_PX`` (a shaft 4 px wide): on
a thin line one distance-transform step (1.37 against 1.91 px) passes for a taper (seed-8181
figure 1: a 2.9 px line, 11 px halves). ``fancy`` lines' halves run 33-94 px at 7-10 px
widths, their thinner halves 2.3-5 px."""

TAPER_FINE_RATIO = 1.12
TAPER_FINE_MAX_RATIO = 1.6
TAPER_FINE_DT_RATIO = 1.05
TAPER_FINE_MIN_HALF_WIDTHS = 2.0
TAPER_FINE_MAX_DISORDER = 1
"""A line joining two nodes read with no head at either end points away from its thicker
half where the taper is too slight for ``TAPER_MIN_RATIO`` (``headtests.fine_taper``): between
its head windows, the half by one end carries ``TAPER_FINE_RATIO`` to ``TAPER_FINE_MAX_RATIO``
times the other's ink per pixel of skeleton length (steeper is another stroke merged in: a
label, a crossing), and the mean exact distance to the background along its skeleton is
``TAPER_FINE_DT_RATIO`` times the other's; each half's skeleton at least
``TAPER_FINE_MIN_HALF_WIDTHS`` line widths long; and cut into four quarters along its
length, at most ``TAPER_FINE_MAX_DISORDER`` of their six pairs widen toward the thin end (a
taper is steady; a missed head's base or noise thickens one quarter alone). Chosen on our
40 matplotlib seeds' ``fancy`` figures and a quarter of every other stored reference, lines
read with no head: ``fancy`` halves 1.12-1.78 apart; a missed ``simple`` head reaching past a
short window into its half made that half the thicker one (seed-3838 figure 10), hence
windows of at least ``HEAD_LENGTH_WIDTHS`` line widths."""

TAPER_MAX_LENGTH_RATIO = 1.5
"""... but only where the two halves are alike in length (within this ratio; a half's length is
its ink over twice its median half-width): split midway between the ends, one stroke's halves
are; a ``fancy`` tail drawn hollow at a small scale (two thin edges, seed-7474 figure 13) or
another line merged in doubles one half's ink at its width, and thins its median. Measured on
ridge pixel counts before session 40: single strokes 1.0-1.41, hollow tails 2.1-2.8."""

FAR_RIM_FRAC = 0.6
NEAR_PART_FRAC = 0.5
"""An end whose thickest ink lies past ``FAR_RIM_FRAC`` of its head window's reach while the ink
within ``NEAR_PART_FRAC`` of it is no thicker than a head's ``HEAD_THICKNESS_RATIO`` shafts: the
base of the other end's big head reaching in, not a head (its tip would be at the node)."""

CROWDED_PLAIN_MAX_SHAFTS = 1.3
"""... on a line touching three or more nodes (a crossing a window's length from the node:
seed-3434 matplotlib figure 9, 0.93 shafts by the node), only where the ink by the node is
under this many shafts: heads converging side by side on one node keep it thicker (seed-1234
figure 3: 1.63; seed-8181 Graphviz figure 3: 1.41; with the two-ended lines' bound instead,
18 of 656 stored references read closer to their specs and 3 further, those two among them)."""

SAME_LINE_TOL_WIDTHS = 3.0
SAME_LINE_TOL_MIN_PX = 6.0
"""Two readings of an image found the same line joining two nodes when its ends at each node lie
within this many of its widths (at least ``SAME_LINE_TOL_MIN_PX``) of each other: the ink kept over
an outline in another colour lengthens a line by about its width (``arrows.detect_lines``)."""
