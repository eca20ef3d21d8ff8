"""Every threshold of the built-in judge and its measurement tools, named once, with its reason.

Units are in the names or comments: ``_PX`` pixels of the full-resolution image being measured,
``_FRAC`` 0-1 fractions, ``_DE`` CIEDE2000 colour difference units, ``_PT`` points.
Pixel sizes that must follow the image's resolution are given per 1000 pixels of the image's
shorter side (``_PER_KPX``) and scaled by :func:`scaled_px`.

The taxonomy's numbers (tiers, staircase, weights) are NOT here: they live only in the taxonomy
file. The Stage 2 gate fractions (30 % / 50 %) are the protocol's, restated here once for the
builtin policy because the protocol names them in prose only.
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

CORNER_SHARP_PX = 1.5
"""Diagonal inset (px) of a square corner after anti-aliasing; insets above it are rounding."""

# ------------------------------------------------------------------------------------------
# Lines and arrowheads

DASH_CLOSE_PER_KPX = 14.0
"""Closing kernel (px per 1000 px) that joins the dashes of a dashed line into one component;
dash gaps are 3-8 px at 720 px (LibreOffice's 1.5 pt dash: 6 px)."""

CONTACT_MARGIN_PER_KPX = 12.0
"""A line touches a node when it comes within this distance (px per 1000 px) of the node's box:
connectors end on the box border; arrowhead tips stop 0-6 px short at 720 px."""

CONTACT_MARGIN_WIDTHS = 1.5
"""... or within this many of its line widths, if that is more: matplotlib stops its arrows 2 pt
short of a node, which is more than a thick line's width in a small, wide image."""

AIM_GAP_PER_KPX = 60.0
"""A line end touching no node reaches the node it points at across a gap up to this long (px
per 1000 px of the short side): hand-drawn (Excalidraw) arrows stop 20-70 px short of their
boxes at 1150-1300 px; the node must lie straight ahead along the line's last stretch."""

AIM_STRETCH_WIDTHS = 12.0
"""The last stretch of a line a free end aims along: its pixels within this many line widths
of the end (at least the aim gap)."""

LABEL_STACK_GAP_FRAC = 0.6
"""Free text lines make one label when their x-ranges overlap and the gap between them is under
this share of the smaller line's height (a two-line edge label: ``en -> query`` over ``str``)."""

LABEL_BRIDGE_GAP_FRAC = 0.3
"""A line set on its label stops at the label (Mermaid, draw.io and Lucidchart paint the label's
background over it): a line touching one node whose far end comes within this share of the
label's line height of it, and one other such line, are one connection through the label."""

HEAD_REACH_PER_KPX = 45.0
"""How far from a contact point (px per 1000 px) an arrowhead is looked for: heads are 10-20 px
long at 720 px."""

JUNCTION_MAX_TURN_DEG = 120.0
"""At a junction of three line branches (a bus T, a merge Y) a stroke may turn by up to this
much; more is doubling back (two arrows meeting at one spot are not joined to each other)."""

APEX_MAX_OPENING_DEG = 60.0
"""A skeleton path whose two arms leave a point within this angle of each other folds back
there (arrows meeting at one head, a fan out of one point): the point is cut as a junction."""

NODE_APEX_MAX_OPENING_DEG = 120.0
"""... and within a few line widths of a node, where arrows into it meet and lines out of it
fan, within this angle."""

STRAIGHT_MIN_INKED = 0.98
STRAIGHT_CORE_EXTRA_PX = 1.5
STRAIGHT_END_WIDTHS, STRAIGHT_END_MIN_PX = 3.0, 6.0
"""A thick line's component (DRAWN_HEADS_MIN_WIDTH_PX) whose nodes' ends all pair off by straight
runs is read as those lines (``strokes.straight_joins``): STRAIGHT_MIN_INKED of the segment between
two ends on its ink and within half a line width and STRAIGHT_CORE_EXTRA_PX of its skeleton (a head
is measured that far off the other runs). Ends lie within STRAIGHT_END_WIDTHS line widths and
STRAIGHT_END_MIN_PX of their node; a junction (a fan's hub) within one width and those pixels
(farther: a crossing)."""

CROSSING_MAX_TURN_DEG = 45.0
"""At a junction of four or more branches (lines crossing) a stroke goes straight on: it may
turn at most this much. Four branches that pair off this way are a crossing, each stroke going
on into its straighter partner only, even next to a node."""

OUTLINE_ONLY_MAX_PAST = 4.0
"""A line component touching one node is that node's outline remnant (a diamond's cut tip) when
past the V's apex it has at most this many squared line widths of ink: no line goes on."""

OUTLINE_RIM_SLACK_PX = 2
"""A node's outline is erased before lines are read up to this far (px) beyond its outline
width outside the node's mask, where the pixels are its outline colour (or a blend with the
background): the openings finding blobs shave a thick outline's outer edge where it curves
most, and the sliver left joined the arrows on either side of the node."""

OUTLINE_SLIVER_MIN_COLOUR_FRAC = 0.5
"""... and when at least this share of the piece's pixels is the outline's colour or a blend of
it with the background."""

CLOSING_FILL_MAX_WIDTHS_SQ = 4.0
"""The dash closing also fills notches and angles within one piece of line ink. A filled region
larger than this many squared line widths that joins no two pieces is not part of the line: the
acute angles of a crossing, the wedge between lines fanning out of one point. It would blur them
into a band or a head-thick wedge. Smaller fills stay (an anti-aliased head's notches)."""

DRAWN_HEADS_MIN_WIDTH_PX = 4.0
"""A solid line touching three or more nodes has its heads measured on its ink as drawn
(``lineink.own_ink``, dropping fill over ``CLOSING_FILL_MAX_WIDTHS_SQ``) when it is at least
this wide: the closing, sized from the line width, fills thick lines crossing or fanning out
into blobs as thick as heads (seed-1313 matplotlib figure 9: 9 px lines). A thinner line's
small head loses its anti-aliased notches' fill there and goes unread (seed-8484 figure 8:
a 2.2 px line). Measured on our matplotlib seeds: the lines this helped 4.75-9 px wide."""

STROKE_SPUR_PER_KPX = 30.0
"""Terminal skeleton branches shorter than this (px per 1000 px) that reach no node are spurs
(arrowhead barbs, skeleton whiskers) and are pruned before strokes are followed."""

HEAD_LENGTH_WIDTHS = 6.0
"""How far back from a line's end (in line widths, at least 6 px) its arrowhead's width is
measured across the line."""

HEAD_SPREAD_RATIO = 3.0
"""An end whose ink is this many line widths wide across the line (within a head's length)
carries an arrowhead, filled or not (measured on our renders and the development figures:
heads 3-11 widths, plain ends 0.6-1.6)."""

HEAD_BEHIND_MAX_WIDTHS = 1.5
"""... provided the ink behind the head is one plain shaft, at most this many widths wide."""

BLOCK_MIN_SHAFT_PX = 4.0
BLOCK_HEAD_WIDTHS = 2.5
BLOCK_BACK_WIDTHS = (3.0, 5.0)
BLOCK_SPREAD_RATIO = 1.6
BLOCK_TIP_WIDTHS = 0.4
BLOCK_TIP_MAX_FRAC = 0.6
"""A block arrow's head, or a small solid head on a thick shaft: a shaft at least
BLOCK_MIN_SHAFT_PX wide (4 px: seed-9191 matplotlib figure 13's 4.4 px tapered arrows end in
heads 2.3 shafts wide and as long, too short for the open-head window) whose ink within
BLOCK_HEAD_WIDTHS shaft widths of its end spreads BLOCK_SPREAD_RATIO times the shaft's width
(measured BLOCK_BACK_WIDTHS widths back) and, within BLOCK_TIP_WIDTHS of the end, is at most
BLOCK_TIP_MAX_FRAC of that spread wide (it narrows to a point)."""

HEAD_CLEAR_WIDTHS = 1.0
HEAD_CLEAR_MIN_PX = 2.0
"""Arrowheads are measured on ink at least this many line widths (and pixels) clear of the
erased node: what is left of a node's outline there (a diamond's mitred tip, anti-aliasing)
is not a head; a head reaches back several widths from the node."""

REMNANT_NEAR_FRAC = 0.9
REMNANT_FAR_FRAC = 0.8
REMNANT_MAX_COVER = 0.5
REMNANT_STEADY_SLICES = 3
REMNANT_MIN_FILL_FRAC = 0.3
REMNANT_MIN_BALANCE = 0.5
"""What is left of a node's own outline at a line's end (a V opening toward the node: a diamond's or
a cut ellipse's tip, after the body opening cut it) is not a head. Its slice across the line nearest
the node is at least ``REMNANT_NEAR_FRAC`` of the widest within a head's length, and it narrows to
at most ``REMNANT_FAR_FRAC`` of that width; it is hollow (its ink covers under ``REMNANT_MAX_COVER``
of that slice's width: two arms), or filled and narrowing over ``REMNANT_STEADY_SLICES`` slices in a
row (a tee head drops to the shaft at once) with ``REMNANT_MIN_FILL_FRAC`` of its nearest slice in
the node's own fill colour (heads meeting at one point narrow too, in the line's colour). The slices
are taken across the ray from the node's centre through the line's end, about which a tip is
symmetric. A head is sought past its apex. Measured on dev10's diamonds and LibreOffice's: remnants
cover 0.1-0.3 of the slice; a filled head's nearest slice covers nearly all of it. Being the node's
own outline, the V's two arms reach about as far to each side of that ray in its nearest slice: the
nearer side at least ``REMNANT_MIN_BALANCE`` of the farther (a filled tip in the node's own fill is
exempt: a rounded corner's sliver lies to one side). A V lopsided to one side is other strokes (a
line crossing the head's, an arc passing by the node toward the same point), and the head is
measured as it is. Measured on our matplotlib and Graphviz seeds and the real figures: true remnants
0.5-1.0; lopsided ones 0.0-0.3, and the eight of those looked at were all other lines."""

HEAD_THICKNESS_RATIO = 1.7
"""An end carries a head when its local thickness (distance-transform max) exceeds the shaft's by
this ratio: heads are 2-3x thicker than the shaft (measured on LibreOffice renders)."""

HEAD_MIN_EXTRA_PX = 1.0
"""... and its half-thickness by at least this many pixels, so anti-aliased 1 px shafts do not
look headed (a partly erased LibreOffice head at 96 dpi measures +1.3 px)."""

HEAD_STRONG_RATIO = 3.0
"""A thick end under this many shaft thicknesses is a head only with one line behind it: lines
fanning out of one point overlap into a wedge 1.7-2.8 shafts thick (matplotlib's fans, our
smoke figures), while heads measure 3.4-10 (Graphviz, matplotlib) and LibreOffice's small
heads 2.4 with one shaft behind."""

MIN_EDGE_LENGTH_PER_KPX = 18.0
"""Ink components smaller than this (px per 1000 px, longest side) are specks or text, not lines."""

# ------------------------------------------------------------------------------------------
# OCR

OCR_MIN_CONFIDENCE = 0.5
"""Lines below this recognition score are dropped (rapidocr's own default text_score)."""

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

HEAD_MIN_TRIANGLE_FILL = 0.7
"""... or one filling this share of the smallest triangle round it, at those sizes: a solid head
with a stub of its shaft fills 0.74-0.94 (seed-6262 matplotlib figure 9: diagonal heads 41-46 px
with extents of 0.72-0.75 read as unlabelled nodes), a disc 0.6, a square 0.5."""

STROKE_MIN_RING_FRAC = 0.4
"""Share of the blob's perimeter (in pixels) that must differ from the fill to call it an outline
(text near the edge or an attached line covers far less)."""

BG_SAME_DE = 6.0
"""A blob fill within this CIEDE2000 of the surrounding background is 'no fill' (outline only)."""

# ------------------------------------------------------------------------------------------
# Line components (judge/tools/arrows.py)

MIN_WORD_CHARS = 2
"""OCR lines with fewer letters/digits than this are arrowheads or line ends misread as text."""

DASH_MIN_PIECES = 4
"""A line made of at least this many separate ink pieces (joined only by the closing) is dashed."""

DASH_GAP_WIDTHS = 3.5
"""The dash-joining closing is at least this many line widths (OOXML dash gaps are 3 widths)."""

DASH_RING_MIN_PIECES = 8
"""A closed outline round an area made of at least this many dashes (separate ink pieces no
longer than ``DASH_PIECE_MAX_CLOSINGS`` closings) is a dashed panel or box's border, not a
line: its dashes are erased before lines are read."""

DASH_RING_MIN_FRAC = 0.5
"""... when dashes make at least this share of the ink along it (arrows crossing the border
make the rest)."""

DASH_PIECE_MAX_CLOSINGS = 3
"""A dash is an ink piece no longer than this many dash closings (a dash is shorter than a few
of its gaps' closings; a line is longer)."""

HEADED_PIECE_MIN_CLOSINGS = 2
"""... unless it is at least this many closings long and carries a head (thicker than
``BRIDGE_HEAD_RATIO`` shafts somewhere): a short fat arrow (seed-6262 matplotlib figure 3:
93 px arrows 10 px wide, heads 1.7 shafts wide) is as short as a few dashes of its width, and
a dash has no head."""

BRIDGE_HEAD_RATIO = 1.4
"""A bridge the dash closing lays sideways is dropped only between two heads: pieces at least
this many times their shaft's thickness near it (lower than ``HEAD_THICKNESS_RATIO``: the
window round the gap holds only part of a head; lines leaving a node's corner together, dev14,
measure 1.0-1.3)."""

BRIDGE_LOOK_CLOSINGS = 3
"""A gap the dash closing bridges between two long ink pieces is judged on each piece's ink
within this many closings of it (``aim.dash_closing``): its centre and its direction there."""

BRIDGE_MAX_TURN_DEG = 30.0
"""Two long ink pieces bridged by the dash closing are one line when the gap between them runs
within this angle of both their directions; else the bridge is dropped (side-by-side heads)."""

DASH_JOIN_FACTOR = 3
"""Dashed runs within this many closing widths of each other are one line (an elbow's corner
can fall in a dash gap wider than the closing bridges)."""

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


def scaled_px(per_kpx: float, shape: tuple[int, ...], minimum: int = 1) -> int:
    """A ``_PER_KPX`` threshold in pixels of an image of ``shape`` (rows, cols, ...)."""
    short = min(shape[0], shape[1])
    return max(minimum, int(round(per_kpx * short / 1000.0)))


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

TAPER_MAX_COUNT_RATIO = 1.5
"""... but only where the two halves' ridges are alike in length (within this ratio): split
midway between the ends, one stroke's halves are; a ``fancy`` tail drawn hollow at a small
scale (two thin edges, seed-7474 figure 13) or another line merged in doubles one half's
ridge, and thins its median. Measured: single strokes 1.0-1.41, hollow tails 2.1-2.8."""

FAR_RIM_FRAC = 0.6
NEAR_PART_FRAC = 0.5
"""An end whose thickest ink lies past ``FAR_RIM_FRAC`` of its head window's reach while the ink
within ``NEAR_PART_FRAC`` of it is no thicker than a head's ``HEAD_THICKNESS_RATIO`` shafts: the
base of the other end's big head reaching in, not a head (its tip would be at the node)."""

SAME_LINE_TOL_WIDTHS = 3.0
SAME_LINE_TOL_MIN_PX = 6.0
"""Two readings of an image found the same line joining two nodes when its ends at each node lie
within this many of its widths (at least ``SAME_LINE_TOL_MIN_PX``) of each other: the ink kept over
an outline in another colour lengthens a line by about its width (``arrows.detect_lines``)."""
