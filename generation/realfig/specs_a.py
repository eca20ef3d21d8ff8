"""Truth specs of real figures dev01-dev08 (see ``model``; boxes in reference pixels).

Written from ``real-figures/truth-notes.md`` and the images; where the notes call a reading
ambiguous, ``Fig.notes`` says which one the spec takes.
"""

from __future__ import annotations

from generation.realfig.model import E, Fig, Icon, L, N, P, T

DEV01 = Fig(
    id="dev01",
    size=(761, 201),
    font_px=12,
    nodes=(
        N("input", "input", (0, 80, 121, 41)),
        N("pre", "pre-processing", (160, 80, 121, 41)),
        N("de", "en-2-de", (320, 0, 121, 41)),
        N("fr", "en-2-fr", (320, 160, 121, 41)),
        N("agg", "aggregate", (480, 80, 121, 41)),
        N("out", "output", (640, 80, 121, 41)),
    ),
    edges=(
        E("input", "pre"),
        E("pre", "de", "vh"),
        E("pre", "fr", "vh"),
        E("de", "agg", "hv"),
        E("fr", "agg", "hv"),
        E("agg", "out"),
    ),
)

DEV02 = Fig(
    id="dev02",
    size=(961, 587),
    font_px=11,
    nodes=(
        N("new", "New Issue", (4, 297, 115, 80), "ellipse", "66FF66"),
        N("tri", "Triaged", (284, 297, 115, 80), "ellipse", "99FFFF"),
        N("wait", "Triaged Wait", (564, 297, 115, 80), "ellipse", "99FFFF"),
        N("close", "Close", (844, 297, 115, 80), "ellipse", "FF6766"),
        N(
            "fix",
            "Based on priority Fix it or Mark it for Future Roadmap",
            (285, 0, 115, 82),
            "ellipse",
            "FFFF99",
            bold=True,
        ),
        N(
            "road",
            "Mark it for Future Roadmap",
            (285, 508, 115, 79),
            "ellipse",
            "FFFF99",
            bold=True,
        ),
    ),
    edges=(
        E("new", "tri", width_px=3),
        E("tri", "wait", width_px=3),
        E("wait", "close", width_px=3),
        E("tri", "fix", width_px=3),
        E("tri", "road", width_px=3),
        E("fix", "close", "curved", bend=-0.2),
        E("tri", "close", "curved", bend=0.15),
    ),
    texts=(
        T("Response within 2 days", (128, 232, 118, 50), "edge_label", bold=True),
        T("Q/A issue Satisfactory Answer within 5 days", (410, 232, 118, 58), "edge_label"),
        T("Answer accepted or iDLE for 7 days", (689, 232, 121, 58), "edge_label", bold=True),
        T("Bug/Doc Fix issue", (392, 95, 80, 60), "edge_label", bold=True),
        T("Feature Enhancements issue", (378, 400, 92, 80), "edge_label", bold=True),
        T("Invalid Feature", (735, 412, 91, 17), "edge_label", bold=True),
    ),
    notes="callouts are edge labels (drawn as text); block arrows drawn as thick lines",
)

_BLUE3 = "364FC7"
_GREEN3 = "2B8A3E"
DEV03 = Fig(
    id="dev03",
    size=(1960, 1280),
    font_px=26,
    edge_colour=_BLUE3,
    nodes=(
        N("reg", "Model Registration request", (219, 220, 285, 244), stroke=_BLUE3, text=_BLUE3),
        N(
            "front",
            "Frontend <Per Worker> <specifies GPUs> <CUDA_VISIBLE_DEVICES>",
            (701, 221, 483, 244),
            stroke=_BLUE3,
            text=_BLUE3,
        ),
        N(
            "spawn",
            "Spawn Multi Processes < torchrun --nproc_per_node CUDA_VISIBLE_DEVICES>",
            (541, 538, 882, 165),
            stroke=_BLUE3,
            text=_BLUE3,
        ),
        N(
            "r0",
            "Rank0 Handler::initialize",
            (139, 777, 484, 248),
            stroke=_BLUE3,
            text=_BLUE3,
            top=True,
        ),
        N("p0", "PiPPy:: initialize", (179, 818, 406, 165), stroke=_BLUE3, text=_GREEN3, top=True),
        N(
            "s0",
            "pipe_driver:: load_model_shard0",
            (220, 857, 321, 90),
            stroke=_BLUE3,
            text=_GREEN3,
        ),
        N(
            "r1",
            "Rank1 Handler::initialize",
            (697, 777, 487, 247),
            stroke=_BLUE3,
            text=_BLUE3,
            top=True,
        ),
        N("p1", "PiPPy:: initialize", (738, 816, 406, 169), stroke=_BLUE3, text=_GREEN3, top=True),
        N(
            "s1",
            "pipe_driver:: load_model_shard1",
            (778, 857, 326, 88),
            stroke=_BLUE3,
            text=_GREEN3,
        ),
        N(
            "rn",
            "RankN Handler::initialize",
            (1336, 779, 486, 246),
            stroke=_BLUE3,
            text=_BLUE3,
            top=True,
        ),
        N("pn", "PiPPy:: initialize", (1379, 819, 404, 167), stroke=_BLUE3, text=_GREEN3, top=True),
        N(
            "sn",
            "pipe_driver:: load_model_shardN",
            (1417, 857, 326, 89),
            stroke=_BLUE3,
            text=_GREEN3,
        ),
    ),
    edges=(
        E("reg", "front", colour=_BLUE3, width_px=3),
        E("front", "spawn", colour=_BLUE3, width_px=2),
        E("spawn", "r0", "vhv", colour=_BLUE3, width_px=2, via=740),
        E("spawn", "r1", "vhv", colour=_BLUE3, width_px=2, via=740),
        E("spawn", "rn", "vhv", colour=_BLUE3, width_px=2, via=740),
    ),
    panels=(
        P("all", "", (20, 100, 1923, 1160), stroke=_BLUE3, dashed=True),
        P("ranks", "", (97, 739, 1803, 401), stroke=_BLUE3, dashed=True),
    ),
    texts=(
        T(
            "Large Model Inference on Torchserve with PiPPy",
            (419, 22, 1212, 60),
            "title",
            _BLUE3,
            40,
        ),
        T("...", (1255, 900, 40, 30), "annotation", _BLUE3),
        T(
            "<pipe_driver:: handles data movement and microbatching through ranks>",
            (537, 1062, 1047, 38),
            "caption",
            _GREEN3,
        ),
    ),
    notes="each rank group is three nested nodes (outer, middle, inner); edges enter the outer",
)

_GREY4 = "E9ECEF"
_GREEN4 = "4C9948"
DEV04 = Fig(
    id="dev04",
    size=(2000, 1274),
    font_px=30,
    edge_colour="1E1E1E",
    nodes=(
        N("client", "Client App", (40, 773, 352, 289), "round", _GREY4),
        N("backend", "Backend App", (1060, 779, 392, 275), "round", _GREY4),
        N("rag", "TorchServe RAG Endpoint", (738, 298, 385, 267), "round", _GREY4, _GREEN4),
        N("llama", "TorchServe Llama Endpoint", (1349, 301, 384, 263), "round", _GREY4, _GREEN4),
    ),
    edges=(
        E("client", "backend", width_px=4, offset=-55),
        E("backend", "rag", width_px=4, offset=-45),
        E("rag", "backend", width_px=4, offset=45),
        E("backend", "llama", width_px=4, offset=-45),
        E("llama", "backend", width_px=4, offset=45),
        E("backend", "client", width_px=4, offset=-65),
    ),
    panels=(P("cluster", "", (583, 143, 1353, 998), stroke="1E1E1E", dashed=True, round=True),),
    texts=(
        T(
            "TorchServe Mult-Endpoint RAG based LLM Serving",
            (667, 21, 1083, 61),
            "title",
            "E8912D",
            40,
        ),
        T("Figure 2: Architecture Diagram", (1056, 1213, 467, 42), "caption", font_px=30),
        T("User Query", (604, 796, 192, 55), "edge_label"),
        T("Query RAG", (850, 687, 154, 44), "edge_label", font_px=24),
        T(
            "Prompt Engineered with Retrieved Context",
            (1092, 587, 250, 100),
            "edge_label",
            font_px=22,
        ),
        T("Llama generated text", (1506, 670, 338, 53), "edge_label"),
        T("Generated Answer", (612, 1029, 292, 42), "edge_label"),
        T("1", (494, 734, 70, 77), "annotation", circled=True),
        T("2", (885, 585, 69, 77), "annotation", circled=True),
        T("3", (1175, 694, 69, 77), "annotation", circled=True),
        T("4", (1336, 573, 72, 76), "annotation", circled=True),
        T("5", (1482, 753, 69, 77), "annotation", circled=True),
        T("6", (487, 995, 69, 77), "annotation", circled=True),
    ),
    notes="circled step numbers are markers (text in a circle), not nodes",
)

_G5 = "B6D7A8"
_GR5 = "CCCCCC"
_PILL = "FFF2CC"
DEV05 = Fig(
    id="dev05",
    size=(1017, 663),
    font_px=13,
    nodes=(
        *(N(f"c{i}", "", (299 + 91 * i, 86, 64, 59), stroke="333333") for i in range(5)),
        *(N(f"b{i}", "", (306 + 91 * i, 123, 52, 14), fill=_G5, stroke="333333") for i in range(5)),
        N("gui", "Graphical User Interface", (847, 7, 156, 161), fill=_GR5, font_px=16),
        N("ctx", "Context: ContextType", (438, 253, 138, 56), "round", "0B5394", None, "FFFFFF"),
        N("art", "Artifact: ArtifactType", (341, 368, 127, 61), "round", "CFE2F3", None),
        N(
            "exe",
            "Execution: ExecutionType",
            (547, 374, 142, 55),
            "round",
            "4A86E8",
            None,
            "FFFFFF",
        ),
        N("sqls", "SQLite Source", (326, 510, 156, 22), fill=_G5, stroke="333333"),
        N("mys", "MySQL Source", (512, 510, 140, 22), fill=_G5, stroke="333333"),
        N("dots", "...", (662, 510, 86, 22), fill=_G5, stroke="333333"),
        N("mem", "SQLite (in memory)", (263, 571, 120, 76), fill=_GR5, stroke="333333"),
        N("disk", "SQLite (on disk)", (418, 564, 85, 91), "can", _GR5, "333333"),
        N("mysql", "MySQL", (539, 564, 86, 91), "can", _GR5, "333333"),
        N("dots2", "...", (662, 564, 85, 91), "can", _GR5, "333333"),
    ),
    edges=(
        E("plat", "gui", both=True, width_px=1),
        *(E(f"b{i}", "store", both=True, width_px=1) for i in range(5)),
        E("art", "ctx", "vh", colour="555555", width_px=1),
        E("exe", "ctx", "vh", colour="555555", width_px=1),
        E("art", "exe", "vhv", colour="555555", width_px=1, via=348),
        E("exe", "art", "vhv", colour="555555", width_px=1, via=455),
        E("store", "gui", "hv", width_px=1),
        E("store", "sqls", both=True, width_px=1),
        E("store", "mys", both=True, width_px=1),
        E("store", "dots", both=True, width_px=1),
        E("sqls", "mem", both=True, width_px=1),
        E("sqls", "disk", both=True, width_px=1),
        E("mys", "mysql", both=True, width_px=1),
        E("dots", "dots2", both=True, width_px=1),
    ),
    panels=(
        P(
            "plat",
            "ML Platform / Workflow (e.g. TFX)",
            (262, 8, 501, 160),
            _GR5,
            "999999",
            title_box=(266, 16, 290, 26),
        ),
        P(
            "store",
            "MetadataStore",
            (263, 206, 499, 277),
            _G5,
            "999999",
            title_box=(447, 215, 131, 24),
        ),
    ),
    texts=(
        T("Pipeline components/steps", (16, 24, 170, 51), "annotation", font_px=16),
        T("MLMD client libraries", (17, 118, 182, 24), "annotation", font_px=16),
        T(
            "Metadata and lineage about input/output artifacts",
            (15, 162, 190, 70),
            "annotation",
            font_px=16,
        ),
        T("Attribution", (272, 307, 102, 30), "edge_label", fill=_PILL),
        T("Association", (649, 307, 104, 30), "edge_label", fill=_PILL),
        T("Event: input", (438, 332, 137, 30), "edge_label", fill=_PILL),
        T("Event: output", (438, 442, 137, 29), "edge_label", fill=_PILL),
        T("Components of ML Metadata", (859, 408, 140, 48), "legend", font_px=16),
    ),
    icons=(Icon((813, 416, 36, 36), _G5),),
    lines=(
        L(((170, 45), (330, 85)), dashed=True, colour="555555", width_px=1),
        L(((215, 130), (300, 130)), dashed=True, colour="555555", width_px=1),
        L(((230, 178), (315, 178)), dashed=True, colour="555555", width_px=1),
    ),
    notes="component arrows end at the MetadataStore panel; pills are edge labels; the legend "
    "square is an icon",
)

_BLUE6 = "A4C2F4"
DEV06 = Fig(
    id="dev06",
    size=(2000, 818),
    font_px=22,
    edge_colour="555555",
    nodes=(
        N("models", "Models", (28, 259, 241, 84), "round", _BLUE6, None, font_px=26),
        N("enc", "encoding", (398, 233, 204, 43), fill=_G5, stroke=None, bold=True),
        N("dec", "step_decoding", (398, 297, 204, 42), fill=_G5, stroke=None, bold=True),
        N(
            "mlc",
            "ML Compilation Optimizations",
            (790, 276, 261, 93),
            "round",
            _BLUE6,
            None,
            bold=True,
        ),
        N("tir", "TensorIR Schedules", (663, 484, 241, 85), "round", _BLUE6, None, font_px=24),
        N(
            "auto",
            "Automatic and Domain Guided optimization",
            (664, 585, 243, 112),
            "round",
            "FFFFFF",
            "2F2F2F",
            font_px=24,
        ),
        N(
            "shader",
            "Customized shader libraries",
            (664, 706, 243, 82),
            "round",
            "FFFFFF",
            "2F2F2F",
            font_px=24,
        ),
        N(
            "apk",
            "MLCChat.apk",
            (1165, 267, 662, 121),
            "round",
            _BLUE6,
            None,
            bold=True,
            font_px=26,
        ),
        N("tvm4j", "TVM4J Java Runtime", (1165, 400, 662, 52), fill=_BLUE6, stroke=None, bold=True),
        N("lib", "libmodel_android.a", (1165, 463, 320, 53), fill=_BLUE6, stroke=None, bold=True),
        N("llm", "llm_chat.a", (1522, 463, 305, 53), fill=_BLUE6, stroke=None, bold=True),
        N(
            "other",
            "Other android devices",
            (1397, 602, 421, 87),
            "round",
            None,
            "222222",
            bold=True,
            dashed=True,
        ),
    ),
    edges=(
        E("models", "irm", colour="555555", width_px=2),
        E("irm", "mlc", colour="555555", width_px=2, offset=-25),
        E("tir", "mlc", colour="555555", width_px=2),
        E("mlc", "lib", colour="555555", width_px=2),
    ),
    panels=(
        P(
            "irm",
            "IRModule",
            (384, 212, 229, 175),
            "FFFFFF",
            "494949",
            title_box=(383, 160, 140, 42),
        ),
    ),
    texts=(
        T("Python first development", (654, 21, 379, 43), "heading", bold=True, font_px=30),
        T("Universal deployment", (1090, 21, 327, 43), "heading", bold=True, font_px=30),
        T("Android App: MLC Chat", (1171, 138, 319, 43), "heading", font_px=26),
        T(
            "fusion, memory planning, loop optimizations weight quantization ...",
            (673, 104, 245, 140),
            "annotation",
            font_px=22,
        ),
        T("Guide optimizations", (633, 383, 213, 71), "edge_label", "555555", 24),
        T("Build and export", (1060, 271, 96, 100), "edge_label", "333333", 22, bold=True),
        T("more..", (1525, 539, 104, 36), "annotation", "555555", 24),
        T(
            "IRModule stores a collection of tensor functions. Each function comes with first "
            "symbolic shape support to trace shape dependencies",
            (17, 709, 600, 92),
            "caption",
            "333333",
            20,
            bold=True,
        ),
        T(
            '@R.function def encoding( input_ids: R.Tensor(("n",), dtype="int32"), ... ): '
            "n = T.int64() cls = Module with R.dataflow(): ...",
            (30, 470, 600, 200),
            "code",
            "333333",
            13,
        ),
    ),
    icons=(
        Icon((43, 157, 89, 87), "A77B54"),
        Icon((397, 87, 180, 62), "2B3A67"),
        Icon((728, 228, 65, 65), "8FBFC4"),
        Icon((1217, 520, 148, 70), "222222"),
        Icon((1193, 601, 89, 89), "25262A"),
        Icon((1310, 600, 43, 90), "AD73EB"),
        Icon((1840, 380, 160, 145), "3DDC84"),
    ),
    lines=(
        L(((1068, 40), (1068, 700)), dashed=True, colour="777777", width_px=2),
        L(((500, 390), (440, 450)), dashed=True, colour="555555", width_px=1.5),
        L(((22, 460), (640, 460), (640, 695), (22, 695), (22, 460)), dashed=True, colour="555555"),
    ),
    notes="IRModule is a container (its heading is its title) holding encoding/step_decoding; "
    "logos, the cycle icon and device images are icons; the code block is text",
)

_GR7 = "D9D9D9"
_ST7 = "666666"
DEV07 = Fig(
    id="dev07",
    size=(1549, 708),
    font_px=24,
    edge_colour=_ST7,
    nodes=(
        N("csv", "CSV", (109, 45, 178, 118), "can", _GR7, _ST7, _ST7),
        N("tfr", "TF Record", (354, 45, 177, 118), "can", _GR7, _ST7, _ST7),
        N("eg", "Example Gen", (215, 279, 211, 119), "round", "C9DAF8", "1155CC", "1155CC"),
        N("split", "Training Eval", (199, 520, 247, 146), "can", _GR7, _ST7, "000000"),
        N("eg2", "ExampleGen", (1121, 39, 211, 118), "round", _GR7, _ST7, _ST7),
        N("sg", "StatisticsGen", (1121, 274, 211, 118), "round", "C9DAF8", "1155CC", "1155CC"),
        N("stats", "Statistics", (1138, 481, 177, 132), "doc", _GR7, _ST7, _ST7),
    ),
    edges=(
        E("csv", "eg", "vhv", colour=_ST7, width_px=2, via=220),
        E("tfr", "eg", "vhv", colour=_ST7, width_px=2, via=220),
        E("eg", "split", colour=_ST7, width_px=2),
        E("eg2", "sg", colour=_ST7, width_px=2),
        E("sg", "stats", colour=_ST7, width_px=2),
    ),
    panels=(
        P("left", "", (8, 8, 606, 686), "FFFFFF", "DDDDDD", round=True),
        P("right", "", (922, 8, 610, 660), "FFFFFF", "DDDDDD", round=True),
    ),
    texts=(
        T("Raw Data", (256, 172, 127, 39), "edge_label"),
        T("Split TF Record Data", (353, 408, 136, 100), "edge_label"),
        T("Data", (1089, 198, 68, 34), "edge_label"),
    ),
    notes="the split cylinder is one node 'Training Eval'",
)

DEV08 = Fig(
    id="dev08",
    size=(727, 408),
    font_px=11,
    nodes=(
        N(
            "sched",
            "SCHEDULED",
            (28, 132, 145, 86),
            "ellipse",
            "666666",
            "000000",
            "FFFFFF",
            bold=True,
        ),
        N(
            "prog",
            "IN_PROGRESS",
            (233, 132, 145, 86),
            "ellipse",
            "FF9900",
            "000000",
            "FFFFFF",
            bold=True,
        ),
        N(
            "failed",
            "FAILED",
            (520, 46, 144, 87),
            "ellipse",
            "FF0000",
            "000000",
            "FFFFFF",
            bold=True,
        ),
        N(
            "done",
            "COMPLETED",
            (521, 174, 143, 87),
            "ellipse",
            "6AA84F",
            "000000",
            "FFFFFF",
            bold=True,
        ),
        N(
            "cancel",
            "CANCELLED",
            (521, 303, 143, 87),
            "ellipse",
            "980000",
            "000000",
            "FFFFFF",
            bold=True,
        ),
    ),
    edges=(
        E("sched", "prog", width_px=1),
        E("sched", "cancel", width_px=1),
        E("prog", "prog", "curved", width_px=1),
        E("prog", "failed", width_px=1),
        E("prog", "done", width_px=1),
        E("prog", "cancel", width_px=1),
    ),
)

SPECS_A = (DEV01, DEV02, DEV03, DEV04, DEV05, DEV06, DEV07, DEV08)
