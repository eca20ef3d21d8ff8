"""Truth specs of real figures dev09-dev16 (see ``model``; boxes in reference pixels)."""

from __future__ import annotations

from generation.realfig.model import E, Fig, Icon, L, N, P, T

_B9 = "CFE2F3"
DEV09 = Fig(
    id="dev09",
    size=(894, 554),
    font_px=12,
    nodes=(
        N("w1", "Worker 1", (22, 67, 79, 73), fill=_B9),
        N("w2", "Worker 2", (22, 184, 79, 73), fill=_B9),
        N("wn", "Worker N", (22, 385, 80, 73), fill=_B9),
        N("mgmt", "Management/Execution Service", (322, 64, 262, 92), fill=_B9, font_px=15),
        N("h1", "H T T P", (300, 64, 22, 92), fill=_B9, font_px=10),
        N("tq", "Task Queues", (322, 246, 262, 93), fill=_B9, font_px=15),
        N("h2", "H T T P", (299, 246, 23, 93), fill=_B9, font_px=10),
        N("orch", "Orchestrator", (688, 64, 106, 275), fill=_B9, font_px=13),
        N("db", "Database", (619, 427, 93, 91), "can", _B9, font_px=15),
        N("idx", "Index", (772, 427, 94, 91), "can", _B9, font_px=15),
    ),
    edges=(
        *(E(w, "h1", colour="FF0000", width_px=1) for w in ("w1", "w2", "wn")),
        *(E(w, "h2", colour="0000FF", width_px=1) for w in ("w1", "w2", "wn")),
        E("mgmt", "orch", width_px=1),
        E("orch", "tq", width_px=1),
        E("orch", "db", width_px=1),
        E("orch", "idx", width_px=1),
    ),
    texts=(
        T("...", (36, 300, 24, 24), "annotation", bold=True, font_px=16),
        T("Schedule", (608, 262, 58, 17), "edge_label", font_px=11),
        T("Task", (620, 290, 34, 19), "edge_label", font_px=11),
        T("Update Task Status", (225, 454, 112, 16), "legend", font_px=11),
        T("Queue Poll", (226, 484, 67, 17), "legend", font_px=11),
    ),
    lines=(
        L(((160, 462), (215, 462)), head=True, colour="FF0000", width_px=1),
        L(((160, 492), (215, 492)), head=True, colour="0000FF", width_px=1),
    ),
    notes="'...' is a placeholder (text); the HTTP strips are their own nodes, where the worker "
    "arrows end",
)

_G10 = "E3FAE3"
_Y10 = "FCFCCA"
_S10 = "3A404A"


def _r10(key: str, label: str, box: tuple[float, float, float, float]) -> N:
    return N(key, label, box, "round", _G10, _S10, "333333")


def _d10(key: str, label: str, box: tuple[float, float, float, float]) -> N:
    return N(key, label, box, "diamond", _Y10, _S10, "333333")


DEV10 = Fig(
    id="dev10",
    size=(1500, 1055),
    font_px=19,
    edge_colour=_S10,
    nodes=(
        _r10("r1", "Reconcile Workflow", (39, 54, 162, 162)),
        _d10("d1", "Did Workflow Complete?", (300, 48, 180, 175)),
        _r10("r2", 'Find Artifacts set to "OnWorkflow Completion" Strategy', (559, 54, 162, 162)),
        _r10("r3", "Artifact A found", (779, 54, 162, 162)),
        _d10("d2", 'Does "Artifact A deletion Pod" already exist?', (1002, 42, 217, 186)),
        _r10("r4", 'Create "Artifact A deletion Pod"', (1299, 59, 162, 162)),
        _d10("d3", "Is Workflow being deleted?", (292, 317, 196, 185)),
        _r10("r5", 'Find Artifacts set to "OnWorkflow Deletion" Strategy', (553, 329, 162, 162)),
        _r10("r6", "Artifact B found", (777, 329, 161, 162)),
        _d10("d4", 'Does "Artifact B deletion Pod" already exist?', (1002, 317, 217, 185)),
        _r10("r7", 'Create "Artifact B deletion Pod"', (1299, 317, 162, 161)),
        _d10("d5", "Have any previous Artifact GC Pods completed?", (277, 557, 225, 205)),
        _r10("r8", "Mark artifacts 'Deleted'", (589, 579, 162, 162)),
        _d10("d6", "Have all previous Artifact GC Pods completed?", (862, 557, 226, 205)),
        _r10("r9", "Remove Artifact GC Finalizer from Workflow", (1179, 574, 162, 162)),
        _r10("r10", "Continue Reconcile", (309, 854, 162, 162)),
    ),
    edges=(
        E("r1", "d1", colour=_S10),
        E("d1", "r2", colour=_S10),
        E("r2", "r3", colour=_S10),
        E("r3", "d2", colour=_S10),
        E("d2", "r4", colour=_S10),
        E("d1", "d3", colour=_S10),
        E("d2", "d3", "vhv", colour=_S10, via=270),
        E("r4", "d3", "vhv", colour=_S10, via=276),
        E("d3", "r5", colour=_S10),
        E("r5", "r6", colour=_S10),
        E("r6", "d4", colour=_S10),
        E("d4", "r7", colour=_S10),
        E("d3", "d5", colour=_S10),
        E("d4", "d5", "vhv", colour=_S10, via=528),
        E("r7", "d5", "vhv", colour=_S10, via=518),
        E("d5", "r8", colour=_S10),
        E("r8", "d6", colour=_S10),
        E("d6", "r9", colour=_S10),
        E("d5", "r10", colour=_S10),
        E("d6", "r10", "vhv", colour=_S10, via=808),
        E("r9", "r10", "vhv", colour=_S10, via=815),
    ),
    texts=(
        T("Yes", (490, 118, 45, 28), "edge_label", bold=True, font_px=16),
        T("No", (1230, 116, 40, 30), "edge_label", bold=True, font_px=16),
        T("No", (373, 254, 33, 25), "edge_label", bold=True, font_px=16),
        T("Yes", (729, 257, 47, 28), "edge_label", bold=True, font_px=16),
        T("Yes", (499, 390, 45, 30), "edge_label", bold=True, font_px=16),
        T("No", (1220, 396, 41, 25), "edge_label", bold=True, font_px=16),
        T("No", (373, 504, 33, 27), "edge_label", bold=True, font_px=16),
        T("Yes", (1033, 513, 48, 29), "edge_label", bold=True, font_px=16),
        T("Yes", (522, 637, 45, 29), "edge_label", bold=True, font_px=16),
        T("Yes", (1107, 635, 50, 33), "edge_label", bold=True, font_px=16),
        T("No", (370, 780, 39, 32), "edge_label", bold=True, font_px=16),
        T("No", (955, 769, 37, 32), "edge_label", bold=True, font_px=16),
    ),
)

_Y11 = "FFF2CD"
_G11 = "EEEEEE"
_E11 = "595959"
DEV11 = Fig(
    id="dev11",
    size=(960, 540),
    font_px=12,
    edge_colour=_E11,
    nodes=(
        N("ctl", "Controller", (120, 160, 155, 130), "ellipse", _G11, "666666", font_px=17),
        N(
            "task",
            "ArtifactGCTask - lists artifacts to be deleted (ownership: WF)",
            (478, 100, 140, 107),
            fill=_Y11,
            stroke="666666",
            font_px=13,
        ),
        N("pod", "GC Pod (ownership : WFTS)", (548, 296, 115, 80), "ellipse", _G11, "666666"),
        N("a1", "Artifact 1", (807, 249, 101, 54), "ellipse", _Y11, "666666"),
        N("a2", "Artifact 2", (814, 336, 101, 54), "ellipse", _Y11, "666666"),
        N("wf", "Workflow", (217, 370, 114, 82), fill=_Y11, stroke="666666", font_px=17),
    ),
    edges=(
        E("ctl", "task", colour=_E11, width_px=1, offset=8),
        E("ctl", "pod", colour=_E11, width_px=1),
        E("pod", "task", colour=_E11, width_px=1, offset=-14),
        E("pod", "a1", colour=_E11, width_px=1),
        E("pod", "a2", colour=_E11, width_px=1),
        E("pod", "task", colour=_E11, width_px=1, offset=14),
        E("task", "ctl", "curved", colour=_E11, width_px=1, bend=0.3),
        E("ctl", "wf", colour=_E11, width_px=1, offset=-20),
        E("ctl", "task", colour=_E11, width_px=1, offset=-18),
        E("ctl", "wf", colour=_E11, width_px=1, offset=20),
    ),
    texts=(
        T("argo namespace", (61, 65, 122, 16), "heading", font_px=13),
        T("user namespace", (557, 69, 122, 17), "heading", font_px=13),
        T("7. results in Status", (312, 80, 56, 32), "edge_label", font_px=10),
        T("9.delete", (259, 154, 50, 18), "edge_label", font_px=10),
        T(
            "1. create (after WF Completion or Deletion)",
            (319, 181, 131, 32),
            "edge_label",
            font_px=10,
        ),
        T("3. read for Artifacts", (509, 246, 64, 35), "edge_label", font_px=10),
        T("6. Write results after all deletions", (584, 239, 72, 48), "edge_label", font_px=10),
        T("2.create", (381, 261, 51, 18), "edge_label", font_px=10),
        T("4.Delete", (723, 288, 51, 18), "edge_label", font_px=10),
        T("5.Delete", (732, 352, 53, 18), "edge_label", font_px=10),
        T(
            "10. remove Finalizer if all Deletions completed",
            (184, 303, 140, 33),
            "edge_label",
            font_px=10,
        ),
        T("8. update Workflow Status", (97, 336, 110, 31), "edge_label", font_px=10),
        T(
            "Finalizer: ArtifactGC Status: Artifact: Deleted: true/false Conditions: "
            "ArtifactGCError",
            (240, 435, 135, 101),
            "code",
            font_px=11,
        ),
    ),
    lines=(L(((443, 20), (443, 480)), width_px=1),),
    notes="the namespace labels are region labels (text); the divider is a line",
)

DEV12 = Fig(
    id="dev12",
    size=(1154, 1014),
    font_px=15,
    nodes=(
        N("nf", "nextflow", (115, 435, 158, 70)),
        N("drv", "nextflow driver", (440, 333, 138, 160), "hexagon"),
        *(N(f"j{i}", "", (800 + 20 * i, 293 + 20 * i, 140, 160), "hexagon") for i in range(4)),
        N("jobs", "workflow jobs", (880, 373, 140, 160), "hexagon"),
        N("pvc", "persistent volume claim", (440, 624, 578, 60)),
        N("rwm", "persistent volume read-write-many", (440, 684, 578, 60)),
        N("store", "Storage", (669, 853, 123, 123), "can"),
        N("gh", "GitHub repository", (594, 72, 88, 46), "plain"),
        N("dock", "Docker registry", (929, 77, 70, 52), "plain"),
    ),
    edges=(
        E("nf", "drv", "curved", width_px=1.5, bend=0.15),
        E("gh", "drv", "curved", width_px=1, bend=0.1),
        E("dock", "drv", "curved", width_px=1, bend=0.2),
        E("dock", "j0", width_px=1),
        *(E("drv", f"j{i}", width_px=1) for i in range(4)),
        E("drv", "jobs", width_px=1),
        E("drv", "pvc", "curved", both=True, width_px=1, bend=0.2),
        E("jobs", "pvc", "curved", both=True, width_px=1, bend=-0.2),
        E("rwm", "store", both=True, width_px=3),
    ),
    panels=(
        P(
            "k8s",
            "Kubernetes cluster",
            (332, 175, 782, 618),
            stroke="000000",
            dashed=True,
            title_box=(242, 145, 98, 45),
        ),
    ),
    texts=(
        T("deploy", (349, 386, 67, 34), "edge_label"),
        T("pull application workflow", (417, 239, 95, 71), "edge_label"),
        T("pull nextflow image", (570, 277, 76, 73), "edge_label"),
        T("pull job images", (887, 230, 128, 25), "edge_label"),
    ),
    icons=(
        Icon((245, 48, 92, 92), "326CE5"),
        Icon((483, 40, 110, 110), "222222"),
        Icon((795, 38, 125, 95), "2496ED"),
        Icon((40, 290, 135, 185), "111111"),
    ),
    notes="GitHub and Docker are nodes named by their text (the logos are icons); the job stack "
    "is 4 unlabelled hexagons behind 'workflow jobs'; the person is an icon",
)

_SERIF = "Liberation Serif"
DEV13 = Fig(
    id="dev13",
    size=(549, 755),
    font_px=16,
    font=_SERIF,
    nodes=(
        N("in", "input", (303, 0, 65, 30), "plain", None, None),
        N("one", "add_one", (185, 95, 132, 48), "ellipse", None),
        N("noop", "no-op", (378, 165, 95, 50), "ellipse", None),
        N("rem", "remainder", (154, 237, 156, 50), "ellipse", None),
        N("three", "add_three", (241, 353, 154, 50), "ellipse", None),
        N("ten", "add_ten", (5, 425, 126, 50), "ellipse", None),
        N("dbl", "double", (145, 427, 112, 48), "ellipse", None),
        N("again", "add_one_again", (245, 497, 208, 50), "ellipse", None),
        N("sum", "sum", (218, 614, 80, 49), "ellipse", None),
        N("out", "output", (223, 724, 71, 28), "plain", None, None),
    ),
    edges=(
        E("in", "one", width_px=1),
        E("in", "noop", "curved", width_px=1, bend=0.08),
        E("one", "rem", width_px=1),
        E("rem", "ten", width_px=1),
        E("rem", "dbl", width_px=1),
        E("rem", "three", width_px=1),
        E("three", "again", width_px=1),
        E("ten", "sum", "curved", width_px=1, bend=0.15),
        E("dbl", "sum", "curved", width_px=1, bend=0.15),
        E("again", "sum", width_px=1),
        E("noop", "sum", "curved", width_px=1, bend=-0.3),
        E("sum", "out", width_px=1),
    ),
    texts=(
        T("value", (300, 42, 60, 30), "edge_label"),
        T("value", (365, 42, 58, 30), "edge_label"),
        T("value", (239, 173, 63, 29), "edge_label"),
        T("0", (186, 304, 21, 24), "edge_label"),
        T("1", (224, 306, 16, 24), "edge_label"),
        T("2", (273, 304, 26, 27), "edge_label"),
        T("value", (485, 362, 62, 27), "edge_label"),
        T("value", (330, 434, 64, 27), "edge_label"),
        T("value", (113, 507, 58, 24), "edge_label"),
        T("value", (176, 507, 58, 24), "edge_label"),
        T("value", (303, 561, 65, 32), "edge_label"),
        T("sum", (254, 686, 47, 18), "edge_label"),
    ),
)

_B14 = "ECECEC"
_S14 = "9B9B9B"
_E14 = "666666"
_RET = (
    "InMemoryBM25Retriever Optional inputs: filters (Optional[Dict[str, Any]]) top_k "
    "(Optional[int]) scale_score (Optional[bool])"
)
DEV14 = Fig(
    id="dev14",
    size=(931, 1305),
    font_px=12,
    edge_colour=_E14,
    nodes=(
        N("start", "*", (345, 8, 54, 54), "diamond", _B14, _S14),
        N("router", "router TextLanguageRouter", (305, 150, 138, 52), fill=_B14, stroke=_S14),
        N("en", f"en_retriever {_RET}", (82, 291, 248, 166), fill=_B14, stroke=_S14, top=True),
        N("fr", f"fr_retriever {_RET}", (379, 291, 248, 167), fill=_B14, stroke=_S14, top=True),
        N("es", f"es_retriever {_RET}", (676, 291, 248, 167), fill=_B14, stroke=_S14, top=True),
        N(
            "join",
            "joiner BranchJoiner Optional inputs: value (list[Document])",
            (407, 545, 191, 134),
            fill=_B14,
            stroke=_S14,
            top=True,
        ),
        N(
            "pb",
            "prompt_builder PromptBuilder Optional inputs: template (Optional[str]) "
            "template_variables (Optional[Dict[str, Any]]) query (Any)",
            (340, 767, 326, 165),
            fill=_B14,
            stroke=_S14,
            top=True,
        ),
        N(
            "llm",
            "llm OpenAIGenerator Optional inputs: generation_kwargs (Optional[Dict[str, Any]])",
            (341, 1020, 324, 135),
            fill=_B14,
            stroke=_S14,
            top=True,
        ),
        N("end", "*", (270, 1242, 54, 54), "diamond", _B14, _S14),
    ),
    edges=(
        E("start", "router", colour=_E14),
        E("router", "en", "curved", colour=_E14, bend=0.1),
        E("router", "fr", "curved", colour=_E14, bend=0.05),
        E("router", "es", "curved", colour=_E14, bend=-0.1),
        E("router", "end", "curved", colour=_E14, bend=0.3),
        E("en", "join", "curved", colour=_E14, bend=0.1),
        E("fr", "join", colour=_E14),
        E("es", "join", "curved", colour=_E14, bend=-0.1),
        E("join", "pb", colour=_E14, dashed=True),
        E("pb", "llm", colour=_E14),
        E("llm", "end", "curved", colour=_E14, bend=0.3),
        E("llm", "end", "curved", colour=_E14, bend=-0.2),
    ),
    texts=(
        T("text str", (353, 84, 43, 45), "edge_label", font_px=13),
        T("en -> query str", (162, 228, 87, 42), "edge_label", font_px=13),
        T("fr -> query str", (457, 224, 89, 45), "edge_label", font_px=13),
        T("es -> query str", (753, 225, 92, 45), "edge_label", font_px=13),
        T("unmatched str", (1, 701, 92, 41), "edge_label", font_px=13),
        T("documents -> value List[Document]", (132, 481, 148, 44), "edge_label", font_px=13),
        T("documents -> value List[Document]", (429, 481, 149, 44), "edge_label", font_px=13),
        T("documents -> value List[Document]", (726, 481, 148, 44), "edge_label", font_px=13),
        T(
            "value -> documents (opt.) list[Document]",
            (404, 700, 196, 45),
            "edge_label",
            font_px=13,
        ),
        T("prompt -> prompt str", (435, 958, 137, 38), "edge_label", font_px=13),
        T("replies List[str]", (137, 1174, 63, 50), "edge_label", font_px=13),
        T("meta List[Dict[str, Any]]", (492, 1177, 122, 44), "edge_label", font_px=13),
    ),
    notes="the '*' diamonds are terminal nodes; each box's whole text is its label",
)

_E15 = "333333"
DEV15 = Fig(
    id="dev15",
    size=(1384, 722),
    font_px=16,
    edge_colour=_E15,
    nodes=(
        N(
            "pre",
            "Pre-trained model",
            (148, 150, 147, 74),
            "round",
            "EEEEEE",
            "555555",
            dashed=True,
        ),
        N("imp", "Import to Relay", (148, 280, 147, 74), "round", "A3C5E8", _E15),
        N("comp", "Compile", (148, 408, 147, 74), "round", "A3C5E8", _E15, font_px=19),
        N("conv", "Convert to FP16", (148, 536, 147, 74), "round", "A3C5E8", _E15, font_px=19),
        N(
            "lib",
            "Compiled Library (.so)",
            (381, 150, 148, 74),
            "round",
            "EEEEEE",
            "555555",
            dashed=True,
        ),
        N("set", "set_input()", (381, 280, 148, 74), "round", "C3D9EE", _E15, font_px=19),
        N("run", "run()", (381, 408, 148, 74), "round", "C3D9EE", _E15, font_px=19),
        N("get", "get_output()", (381, 536, 148, 74), "round", "C3D9EE", _E15, font_px=19),
        N("rpc", "RPC", (977, 165, 125, 50), "hexagon", "9ED0C4", _E15),
        N("inp", "Input data", (1135, 280, 145, 73), "round", "FEF445", _E15, dashed=True),
        N("gex", "GraphExecutor", (944, 408, 192, 74), fill="C3D9EE", stroke=_E15),
        N("outp", "Output", (971, 543, 138, 60), fill="F9C710", stroke=_E15),
    ),
    edges=(
        E("pre", "imp", colour=_E15),
        E("imp", "comp", colour=_E15),
        E("comp", "conv", colour=_E15),
        E("conv", "lib", colour=_E15, points=((222, 630), (338, 630), (338, 125), (455, 125))),
        E("lib", "set", colour=_E15),
        E("set", "run", colour=_E15),
        E("run", "get", colour=_E15),
        E("rpc", "gex", colour=_E15),
        E("inp", "gex", colour=_E15, points=((1300, 317), (1300, 445))),
        E("gex", "outp", colour=_E15),
        E("set", "inp", colour=_E15, dashed=True),
        E("run", "gex", colour=_E15, dashed=True),
        E("outp", "get", colour=_E15, dashed=True),
    ),
    panels=(
        P(
            "host",
            "Host",
            (38, 37, 608, 649),
            "9ED0C4",
            "333333",
            round=True,
            title_box=(284, 62, 117, 45),
        ),
        P(
            "dev",
            "Android device",
            (735, 37, 614, 649),
            "8FD04E",
            "333333",
            round=True,
            title_box=(917, 62, 248, 45),
        ),
    ),
    texts=(T("miro", (1302, 670, 56, 27), "annotation", "BBBBBB", 20),),
)

DEV16 = Fig(
    id="dev16",
    size=(1975, 1148),
    font_px=30,
    edge_colour="1E1E1E",
    nodes=(
        N("user", "User", (18, 410, 252, 275), "round", None, "1E1E1E"),
        N("core", "Weaviate Core", (684, 18, 466, 465), "round", None, "1E1E1E", font_px=36),
        N("disk1", "disk", (916, 311, 189, 148), "can", None, "1E1E1E"),
        N("q", "Querier", (691, 665, 489, 467), "round", None, "1E1E1E", font_px=36),
        N("disk2", "disk", (944, 955, 189, 147), "can", None, "1E1E1E"),
        N("obj", "Object Storage", (1674, 243, 283, 375), "can", None, "1E1E1E"),
    ),
    edges=(
        E(None, "core", start=(362, 246), width_px=4),
        E(None, "core", start=(355, 366), width_px=4),
        E(None, "q", start=(281, 893), width_px=4),
        E("core", "obj", width_px=3),
        E("q", "obj", width_px=3),
    ),
    texts=(
        T("ingestion", (442, 190, 148, 44), "edge_label"),
        T("query ACTIVE tenants", (343, 304, 336, 49), "edge_label"),
        T("query OFFLOADED tenants", (269, 821, 410, 46), "edge_label"),
        T("offload tenant", (1281, 200, 214, 60), "edge_label"),
        T("download offloaded tenant", (1237, 680, 358, 60), "edge_label"),
    ),
    notes="the three left arrows start in empty space: drawn, but they are no edges between "
    "nodes; the disks are nested nodes",
)

SPECS_B = (DEV09, DEV10, DEV11, DEV12, DEV13, DEV14, DEV15, DEV16)
