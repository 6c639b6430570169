"""KiCad's own tools on the generated strip segment: fill the ground planes, run the design-rule check, plot the
Gerbers and the Excellon drill file, and zip them for a board house.

    /usr/bin/python3 hardware/kicad_outputs.py OUT_DIR [ZIP]   # (the Python that has KiCad 6's pcbnew module)

Prints one JSON line: the DRC's violation and unconnected counts, the files written. With ZIP (the committed one),
replaces it when what KiCad plots differs from it in more than the dates it stamps. `make pcb` runs it.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOARD = HERE / "pcb" / "strip_segment.kicad_pcb"

LAYERS = ["F.Cu", "B.Cu", "F.Mask", "B.Mask", "F.Paste", "F.SilkS", "B.SilkS", "Edge.Cuts"]


def content(data: bytes) -> list[str]:
    """A plot file's lines, without the ones that carry the date it was made."""
    lines = data.decode("ascii", "replace").splitlines()
    return [ln for ln in lines if "CreationDate" not in ln and "date" not in ln.lower()]


def same_plots(a: Path, b: Path) -> bool:
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        if sorted(za.namelist()) != sorted(zb.namelist()):
            return False
        return all(content(za.read(n)) == content(zb.read(n)) for n in za.namelist())


def main(out: Path, committed: Path | None = None) -> int:
    out = out.resolve()  # KiCad takes a relative plot folder as relative to the board's own
    import pcbnew  # type: ignore[import-not-found]  # KiCad's, in the system's Python only

    out.mkdir(parents=True, exist_ok=True)
    board = pcbnew.LoadBoard(str(BOARD))
    pcbnew.ZONE_FILLER(board).Fill(board.Zones())
    report = out / "drc.txt"
    pcbnew.WriteDRCReport(board, str(report), pcbnew.EDA_UNITS_MILLIMETRES, True)
    text = report.read_text(encoding="utf-8")
    violations = int(m.group(1)) if (m := re.search(r"\*\* Found (\d+) DRC violations", text)) else -1
    unconnected = int(m.group(1)) if (m := re.search(r"\*\* Found (\d+) unconnected pads", text)) else -1

    pc = pcbnew.PLOT_CONTROLLER(board)
    po = pc.GetPlotOptions()
    po.SetOutputDirectory(str(out))
    po.SetPlotFrameRef(False)
    po.SetUseGerberProtelExtensions(False)
    po.SetCreateGerberJobFile(False)
    po.SetSubtractMaskFromSilk(True)
    po.SetUseAuxOrigin(False)
    written = []
    for name in LAYERS:
        pc.SetLayer(getattr(pcbnew, name.replace(".", "_")))
        pc.OpenPlotfile(name.replace(".", "_"), pcbnew.PLOT_FORMAT_GERBER, name)
        pc.PlotLayer()
        written.append(Path(pc.GetPlotFileName()))
    pc.ClosePlot()
    drill = pcbnew.EXCELLON_WRITER(board)
    drill.SetOptions(False, False, board.GetDesignSettings().GetAuxOrigin(), False)
    drill.SetFormat(True)
    drill.CreateDrillandMapFilesSet(str(out), True, False)
    written += sorted(out.glob("*.drl"))
    archive = out / "strip_segment_gerbers.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for f in written:
            z.write(f, f.name)
    pads = [
        {
            "ref": fp.GetReference(),
            "pad": p.GetNumber(),
            "x": pcbnew.ToMM(p.GetPosition().x),
            "y": pcbnew.ToMM(p.GetPosition().y),
        }
        for fp in board.GetFootprints()
        for p in fp.Pads()
    ]
    footprints = [
        {
            "ref": fp.GetReference(),
            "x": pcbnew.ToMM(fp.GetPosition().x),
            "y": pcbnew.ToMM(fp.GetPosition().y),
            "rot": fp.GetOrientationDegrees(),
            "back": fp.IsFlipped(),
        }
        for fp in board.GetFootprints()
    ]
    print(
        json.dumps(
            {
                "kicad": pcbnew.Version(),
                "violations": violations,
                "unconnected": unconnected,
                "files": sorted(f.name for f in written),
                "zip": archive.name,
                "pads": pads,
                "footprints": footprints,
            }
        )
    )
    if committed is not None and not (committed.exists() and same_plots(archive, committed)):
        committed.write_bytes(archive.read_bytes())
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None))
