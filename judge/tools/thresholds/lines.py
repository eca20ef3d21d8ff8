"""Lines, their strokes and their arrowheads.

Part of :mod:`judge.tools.thresholds` (units and conventions in its docstring; import from there).
"""

from __future__ import annotations

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

NODE_APEX_AWAY_MAX_DEG = 70.0
"""... provided both arms lead away from the node, each within this angle of the way from the
node's box to the fold: an elbow line bending a few widths off a node has one arm along the
node's side (90 degrees) and is one line passing by (seed-8989 Graphviz figure 5: Sampler's line
bending 10 px past Deploy's end was cut there and read as Sampler -> Deploy)."""

STRAIGHT_MIN_INKED = 0.98
STRAIGHT_CORE_EXTRA_PX = 1.5
STRAIGHT_END_WIDTHS, STRAIGHT_END_MIN_PX = 3.0, 6.0
"""A thick line's component (DRAWN_HEADS_MIN_WIDTH_PX) whose nodes' ends all pair off by straight
runs is read as those lines (``strokes.straight_joins``): STRAIGHT_MIN_INKED of the segment between
two ends on its ink and within half a line width and STRAIGHT_CORE_EXTRA_PX of its skeleton (a head
is measured that far off the other runs). Ends lie within STRAIGHT_END_WIDTHS line widths and
STRAIGHT_END_MIN_PX of their node; a junction (a fan's hub) within one width and those pixels
(farther: a crossing)."""

CROSS_END_MARGIN_FRAC = 0.05
"""Two straight runs cross when each meets the other farther than this share of its length from
both its ends (runs meeting at a shared end, or one ending on the other, do not cross)."""

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

OUTLINE_PROBE_OUT_FRAC = 0.15
"""A node's outline is measured as drawn (``lineink.outline_width``) on probes across its box's
sides starting this share of the box's short side outside it: the openings finding blobs shave
the outer edge of a thick outline where it curves most, so the box may start inside it
(seed-8989 Graphviz figure 5: a 6 px outline at an ellipse's end, 2 px of it in the box)."""

OUTLINE_SLIVER_MIN_ELONGATION = 3.0
"""A piece of ink that lies within a node's outline as drawn but past the width its mask keeps
is a sliver of that outline only when its smallest rotated box is this many times as long as it
is wide: a sliver runs along the rim (seed-8989 Graphviz figure 5: 30 x 5 px), a head's barb cut
off its shaft by the node's erasing is compact (seed-9595 matplotlib figure 1)."""

OUTLINE_SLIVER_MIN_TILT_DEG = 60.0
"""... and when its long side lies at least this far from the way to the mask's nearest pixel
(90: square to it, along the rim): a dashed line's first dash ending at a dashed node's rim is as
long and thin but points at the node (dev15: "set_input()" -> "Input data" lost its start)."""

CLOSING_FILL_MAX_WIDTHS_SQ = 4.0
"""The dash closing also fills notches and angles within one piece of line ink. A filled region
larger than this many squared line widths that joins no two pieces is not part of the line: the
acute angles of a crossing, the wedge between lines fanning out of one point. It would blur them
into a band or a head-thick wedge. Smaller fills stay (an anti-aliased head's notches)."""

BRIDGE_FILL_MAX_WIDTHS_SQ = 8.0
"""... and fill joining two pieces of ink is kept as a bridge (a dash gap, a break) only up to
this many squared line widths: a dash gap's bridge is a gap (at most the closing,
``DASH_GAP_WIDTHS`` widths) by one width. Larger, it is the wedge between separate lines
leaving one side of a node close together (seed-6464 matplotlib figure 3: four arrows out of
"Filter", the two pairs' wedges 15 and 22 squared widths), whose thick ridge read as a head at
the fan's hub and swallowed the heads at its far ends. A larger wedge with a head by it
(``HEAD_THICKNESS_RATIO``) stays whole: a head and another line's tail glued to one point; so
does one touching a dash (a piece no longer than ``DASH_PIECE_MAX_CLOSINGS`` closings carrying
no head, ``BRIDGE_HEAD_RATIO``), and a dashed line keeps every bridge. The dash closing itself
(``aim.dash_closing``) drops a sideways bridge this large between two long pieces with no head
by it, at least ``DRAWN_HEADS_MIN_WIDTH_PX`` wide: two thick tails leaving a node side by side
(seed-8686 matplotlib figure 13). Thinner lines leaving one corner stay one fan (dev14)."""

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

BLOCK_MIN_SHAFT_PX = 2.5
BLOCK_HEAD_WIDTHS = 2.5
BLOCK_BACK_WIDTHS = (3.0, 5.0)
BLOCK_SPREAD_RATIO = 1.6
BLOCK_TIP_WIDTHS = 0.4
BLOCK_TIP_MAX_FRAC = 0.6
BLOCK_ALONE_BELOW_PX = 4.0
BLOCK_ALONE_MAX_FRAC = 0.8
"""A block arrow's head, or a small solid head on a thick shaft: a shaft at least
BLOCK_MIN_SHAFT_PX wide (seed-9191 matplotlib figure 13's 4.4 px tapered arrows end in heads
2.3 shafts wide and as long, too short for the open-head window; seed-1919 figure 3's 3.4 px
lines in heads 2.2 shafts wide, their thickness 1.4-1.6 times the shaft's, under the
thickness test's ratio) whose ink within BLOCK_HEAD_WIDTHS shaft widths of its end spreads
BLOCK_SPREAD_RATIO times the shaft's width (measured BLOCK_BACK_WIDTHS widths back) and, within
BLOCK_TIP_WIDTHS of the end, is at most BLOCK_TIP_MAX_FRAC of that spread wide (it narrows to a
point). On a shaft under BLOCK_ALONE_BELOW_PX the spread must also stand alone: no slice
behind it (out to BLOCK_BACK_WIDTHS' far end) reaches BLOCK_ALONE_MAX_FRAC of it. A thin
slanted line's staircase makes single slices twice its width (seed-4141 figure 4), and a
tapered tail by another line's tail makes a wider junction behind (seed-2424 figure 13)."""

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

STUB_STEP_FRAC = 0.5
"""A line between two nodes read with a head at both ends is read along the line joining its
ends: its width across (ink pixels per pixel along) peaks at a head's base. Where it falls to
this share of that peak within ``STUB_STEP_MAX_SHAFTS`` shaft widths (at least
``STUB_STEP_MIN_BINS`` pixels) on one side, and keeps under ``STUB_SHAFT_SLACK`` times the
shaft plus ``STUB_SLACK_PX`` from there to the end, while on the other side it
takes ``STUB_TAPER_RATIO`` times as long to fall (a head tapering to its tip), the first end
is a tail: a head longer than its shaft reaches the tail's window (seed-7575 matplotlib
figure 12)."""

STUB_STEP_MAX_SHAFTS = 1.0
"""... (see ``STUB_STEP_FRAC``)."""

STUB_SHAFT_SLACK = 1.5
"""... (see ``STUB_STEP_FRAC``)."""

STUB_TAPER_RATIO = 3.0
"""... (see ``STUB_STEP_FRAC``)."""

STUB_STEP_MIN_BINS = 2
"""... (see ``STUB_STEP_FRAC``)."""

STUB_SLACK_PX = 1.0
"""... (see ``STUB_STEP_FRAC``; anti-aliasing widens a shaft by a pixel here and there)."""

HEAD_STRONG_RATIO = 3.0
"""A thick end under this many shaft thicknesses is a head only with one line behind it: lines
fanning out of one point overlap into a wedge 1.7-2.8 shafts thick (matplotlib's fans, our
smoke figures), while heads measure 3.4-10 (Graphviz, matplotlib) and LibreOffice's small
heads 2.4 with one shaft behind."""

MIN_EDGE_LENGTH_PER_KPX = 18.0
"""Ink components smaller than this (px per 1000 px, longest side) are specks or text, not lines."""

# ------------------------------------------------------------------------------------------
# Line components (judge/tools/arrows.py)

MIN_WORD_CHARS = 2
"""OCR lines with fewer letters/digits than this are arrowheads or line ends misread as text."""

DASH_MIN_PIECES = 4
"""A line made of at least this many separate ink pieces (joined only by the closing), specks
not counted (``DASH_SPECK_AREA_WIDTHS``), is dashed (``aim.dash_pieces``)."""

DASH_SPECK_AREA_WIDTHS = 0.5
"""An ink piece smaller than this many squared line widths is a speck (anti-aliasing, an
outline's sliver), not a dash: a dot of a dotted line is about one squared width."""

DASH_MAX_PIECE_SHARE = 0.5
"""A component whose largest ink piece holds more than this share of its ink is a solid line
with specks or slivers beside it, not a dashed one (a dashed arrow's head and last dash hold
about 40% of a four-piece line's ink): seed-7272 matplotlib figure 13, tapered arrows whose
tails the closing merged by their node, with slivers of its outline, read as dashed and joined
into one line touching all six nodes."""

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
"""A bridge the dash closing lays sideways is dropped between two heads: pieces at least
this many times their shaft's thickness near it (lower than ``HEAD_THICKNESS_RATIO``: the
window round the gap holds only part of a head; lines leaving a node's corner together, dev14,
measure 1.0-1.3)."""

BRIDGE_APART_WIDTHS = 1.5
"""... or between two pieces with no head near it (neither ``BRIDGE_HEAD_RATIO`` shafts thick)
this many line widths apart at their nearest (the wider piece's width): two lines leaving one
side of a node close together, not one line's break (seed-1717 matplotlib figure 12: two 4.6 px
arrows out of "Align" 9 px apart, an 11 px closing; joined, their strokes paired every way and
neither edge kept its direction). Lines leaving a node's corner from one point (dev14: 3 px
apart, 2-3 px wide) stay one fan. Where one piece is head-thick the bridge stays: a head can
lie that far off its own shaft in the line ink (seed-2424 matplotlib figure 5), and two heads
side by side have their own rule."""

BRIDGE_LOOK_CLOSINGS = 3
"""A gap the dash closing bridges between two long ink pieces is judged on each piece's ink
within this many closings of it (``aim.dash_closing``): its centre and its direction there."""

BRIDGE_MAX_TURN_DEG = 30.0
"""Two long ink pieces bridged by the dash closing are one line when the gap between them runs
within this angle of both their directions; else the bridge is dropped (side-by-side heads)."""

DASH_JOIN_FACTOR = 3
"""Dashed runs within this many closing widths of each other are one line (an elbow's corner
can fall in a dash gap wider than the closing bridges)."""

SHAFT_DT_MIN_WIDTH_PX = 3.0
SHAFT_DT_STEP_PX = 1.0
SHAFT_DT_SLACK_PX = 0.5
"""The distance transform's steps make a thin slanted shaft read about a step thicker than a
level one: a 4.1 px line's ridge reads 2.74-2.87 px slanted, 1.91 px level (seed-6969
matplotlib figure 3: its 4.65 px heads fell under ``HEAD_THICKNESS_RATIO`` shafts). Where a
two-ended line's shaft by an end reads at most ``SHAFT_DT_STEP_PX`` over half its stroke
width (``LineComp.thickness_px``: twice area over perimeter, finer than those steps), the
head is measured against that half width plus ``SHAFT_DT_SLACK_PX``. A shaft reading
thicker still is something else (lines merged by the closing, a light line's faint edges)
and is kept: applied there too, 16 readings of the 696 stored references came closer to
their specs and 13 went further; within a step, 11 closer and 1 further. Lines under
``SHAFT_DT_MIN_WIDTH_PX`` wide (as read: a tiny figure's faint lines, enlarged) keep their
ridge: so few pixels do not tell a head from a line's own end (dev10 in the tiny look: both
faithful decks it passed failed)."""

BARB_SEGMENT_INK_FRAC = 0.9
BARB_AHEAD_FRAC = 0.7
BARB_MAX_HEAD_THICKNESSES = 3.0
"""A line touching three nodes, two of them a short way apart (within two head reaches)
through one solid piece of ink (``BARB_SEGMENT_INK_FRAC`` of the straight path between the two
touch points is its ink), with one stroke coming into that piece from behind, ends at one of
them only: a big head's barb grazes the corner of the node beside the one its tip reaches
(seed-3838 matplotlib figure 9: "Filter" -> "Mask" read as "Filter" -> "Report" -> "Mask", a
52 px head spanning 74 px from barb to tip). The touch lying ``BARB_AHEAD_FRAC`` of their
distance further back along that stroke's run is dropped, when the ink by the other is thick
enough for a head spanning them (their distance at most ``BARB_MAX_HEAD_THICKNESSES`` times
its thickness; a slender head's side is about 2.6 thicknesses). Heads side by side (a fork)
lie level across the run and both stay; a short line of its own between two nodes, merged
with another line's head, is far longer than that head is thick (seed-9191 figure 5: 127 px
against a 32 px head). Where more nodes are touched, lines cross there, and a dropped node
loses its other strokes' edges too (seed-3737 figure 3: "Splitter", passed at its corner by
another line, lost its two edges)."""

ANCHOR_CORE_FRAC = 0.6
ANCHOR_HEAD_THICKNESSES = 4.0
ANCHOR_HEAD_MIN_PX = 8.0
ANCHOR_ELONGATED = 2.0
ANCHOR_RING_HEADS = (1.5, 2.5)
ANCHOR_OWN_MAX_DEG = 35.0
ANCHOR_MARGIN_DEG = 18.0
ANCHOR_LEAVE_MAX_DEG = 90.0
ANCHOR_DECISIVE = 2.0
ANCHOR_FORK_HEADS = 2.0
"""A head at a node's anchor with two lines behind it, one of them a line leaving that anchor
(``anchors.mark_leaving``). The head is its ink at least ``ANCHOR_CORE_FRAC`` of its thickness
thick within ``ANCHOR_HEAD_THICKNESSES`` thicknesses (``ANCHOR_HEAD_MIN_PX``) of its tip; its
axis runs from the tip to that ink's middle, or along or across that ink where it is
``ANCHOR_ELONGATED`` times longer one way than the other (variances). The lines are told apart
on a ring ``ANCHOR_RING_HEADS`` head lengths from the tip (past the head): the head's own line
within ``ANCHOR_OWN_MAX_DEG`` of its axis, the other at least ``ANCHOR_MARGIN_DEG`` further off
(seed-4646 matplotlib figure 4: 25 against 54 degrees; seed-3838 figure 4: 5 against 26). Two
heads landing on one anchor lie about as near it (12 and 19 degrees there); two lines fanning
out of one point make a wedge whose axis runs between them. The other line leaves the node at
most ``ANCHOR_LEAVE_MAX_DEG`` off the axis (further, it runs along the node). Each line is
followed through the component (the head cut away); a node counts as reached by the other
line when that line reaches it first by ``ANCHOR_DECISIVE`` times the way, and has a head
there: a line leaving ends with a head. Where that end was taken for a fan's hub and has one
other line, to a head, it is that head (``anchors._hub_head``; seed-2121 figure 10: the arc
"Cache" -> "Indexer" lands where "Indexer" -> "Router" leaves, the two lines behind it at 67
and 12 degrees to its axis), unless its own two lines lie within ``ANCHOR_MARGIN_DEG`` of each
other (two tails leaving side by side: seed-6464 figure 8, 7 and 11 degrees). Not where a head
of another node lies within ``ANCHOR_FORK_HEADS`` head lengths of that ring (heads side by
side: a fork), nor where the head's own line reaches only heads (two lines leaving one point:
seed-1111 figure 8's tails at "Train", whose wedge lies along one of them)."""

PASS_BY_MIN_END_MARGINS = 2.0
PASS_BY_MAX_SIDEDNESS = 0.5
PASS_BY_RING_MARGINS = 3.0
"""A line touching three or more nodes, read with a head at one of them, passes that node by
(``contacts.passes_by``: no end there, the touch and its head dropped, the nodes either side
joined) where no end or branch point of its skeleton lies within ``PASS_BY_MIN_END_MARGINS``
contact margins of the touch (a head's tip is an end: 0.1-1.6 margins off at the 20-odd
headed touches measured on seven figures, merged heads included) and its pixels in the ring
from one to ``PASS_BY_RING_MARGINS`` margins round it lie on both sides: their mean offset under
``PASS_BY_MAX_SIDEDNESS`` of their mean distance. Seed-9797 matplotlib figure 0: "Annotate" ->
"Indexer" passes "Segment"'s corner with its label "batch" touching it there, read as a head
(nearest end 2.5 margins off, at the label's letters; 0.42 on both sides). A head landing
where another line leaves, its tip merged into that line's tail, has no end there either and
measured 0.55 (seed-3232 figure 4, "Scorer" -> "Parser" beside "Parser" -> "Cluster"): 0.6
took it for a pass-by, so the limit is 0.5. Two lines meeting at a node, whose skeleton runs
on through the meeting point, measured 0.73-0.82 (matplotlib seeds 2525, 3737, 3838); two
heads converging on a diamond's tip 0.60 and heads crowding at a node 0.50-0.59, their ends
1.1-1.5 margins off (seeds 7171, 7878, Graphviz 6464), which the end distance alone tells
apart."""

TOUCH_SPLIT_MIN_NODES = 3
"""A line component touching one node at two places far apart is two lines ending there (a
line leaving one side, another's head or tail on the other: seed-4646 matplotlib figure 4,
"Align" -> "Pooling" leaves "Align"'s right side while the arc to "Critic" leaves its left,
beside "Mapper" -> "Align"'s head). Its pixels near the node (the contact margin) fall into
separate groups there, each holding at least the margin's worth of pixels and each a head's
reach or more (``HEAD_REACH_PER_KPX`` plus the margin) from the others (a head's barbs and tip
lie within that reach), on different sides of the node (a right angle or more apart seen from
its centre), each with a skeleton end or branch point within the margin (a line passing a
corner has none: seed-3838 figure 10). Only where the component touches this many nodes or
more (its strokes pair its ends, ``strokes.stroke_joins``); a line between two nodes grazing
one of them is still one line. Such a line's ``medium`` edges stay ``medium`` only where the
line read with one contact per node has them (``contacts.cap_places``)."""

SHORT_END_MARGINS = 2.0
"""A line that stops a little short of a node ends there when its end lies within this many
contact margins of the node's box (of its shape, for an ellipse or a diamond), among the
nodes it does not touch: matplotlib stops its arrows 2 pt short of a patch, beyond the margin
on small wide figures (seed-6464 matplotlib figure 11: two elbow lines 6-8 px short of their
ellipses; seed-2424 figure 4: "Segment" -> "Tokenizer"'s head short of "Tokenizer", its tail
in a back arc's component). The end is
the pixel nearest the box of a group of the line's pixels that near the node, all within a
head's reach of it (a line running along the box is none), with a skeleton end or branch
point within the margin (a line passing by has none), a head's reach from the line's other
touches and on no panel's border; the ray along the line's last stretch enters the node's
box first of all boxes, within a head's reach (a numbered badge beside a head is no node it
points at). ``contacts.short_ends``."""
