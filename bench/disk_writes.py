"""What the board writes to its storage (issue 22 item 6): prints figures; asserts nothing.

The daemon runs in-process on simulated devices with its journal on the disk to
measure (``--dir``; an SD card wears with what is written to it, not with what is kept),
``keep_hands: 200`` and ``archive: true``, and plays ``--hands`` hands (a retention
prune every 25). The bytes written come from ``/proc/self/io`` ``write_bytes``: what
this process sent to the block layer, counted when the pages were dirtied, so SQLite's
WAL appends, its checkpoints into the database, the prunes (with their archive
files and vacuum) and the ack mark are all in it; the prunes are also counted alone.
The text log is what the daemon writes to standard error at the default level (INFO),
which systemd's journal stores (with its own overhead on top, not counted here).

From these, at 30 hands an hour (720 a day): the journal's growth per day, and what a
30-day run leaves on disk: the journal (bounded by ``keep_hands``), the archive (every
hand pruned from the journal), the text log.

    python bench/disk_writes.py                  # 300 hands in a folder under /var/tmp
    python bench/disk_writes.py --hands 100 --dir /mnt/sdcard
"""

from __future__ import annotations

import argparse
import io
import logging
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from daemon import CONFIG, close, in_process, play_hands  # noqa: E402

HANDS_A_DAY = 30 * 24
DAYS = 30


def write_bytes() -> int:
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("write_bytes:"):
            return int(line.split()[1])
    raise RuntimeError("/proc/self/io has no write_bytes (a kernel without task I/O accounting)")


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


class CountingStream(io.TextIOBase):
    def __init__(self) -> None:
        self.bytes = 0

    def write(self, text: str) -> int:
        self.bytes += len(text.encode("utf-8"))
        return len(text)


def run(work: Path, hands: int) -> dict[str, float]:
    from controller.daemon.process import setup_logging

    state = work / "state"
    config = work / "table.yaml"
    text = CONFIG.format(state_dir=state).replace(
        "keep_hands: 200", "keep_hands: 200, archive: true"
    )
    config.write_text(text.replace("level: WARNING", "level: INFO"))
    stream = CountingStream()
    setup_logging("INFO", stream)  # type: ignore[arg-type]
    daemon = in_process(config)
    journal = daemon.journal
    assert journal is not None
    pruned = {"bytes": 0, "count": 0}
    prune = journal.prune

    def counted_prune(*args: Any, **kwargs: Any) -> Any:
        before = write_bytes()
        try:
            return prune(*args, **kwargs)
        finally:
            pruned["bytes"] += write_bytes() - before
            pruned["count"] += 1

    journal.prune = counted_prune  # type: ignore[method-assign]
    rng = random.Random(22)
    play_hands(daemon, 5, rng)  # seated and warm: the journal's creation is not counted
    events_before, log_before, written_before = journal.last_seq, stream.bytes, write_bytes()
    play_hands(daemon, hands, rng)
    written = write_bytes() - written_before
    events = journal.last_seq - events_before
    log_bytes = stream.bytes - log_before
    journal.checkpoint()
    with journal.mutex:
        kept_hands = journal.connection.execute(
            "SELECT COUNT(DISTINCT hand) FROM events WHERE hand > 0"
        ).fetchone()[0]
        log_rows = journal.connection.execute("SELECT COUNT(*) FROM system_log").fetchone()[0]
    close(daemon)
    archive = state / "archive"
    archived_hands = max(1, hands + 5 - kept_hands)
    return {
        "hands": hands,
        "events": events,
        "written": written,
        "prune_bytes": pruned["bytes"],
        "prunes": pruned["count"],
        "journal_bytes": folder_bytes(state) - (folder_bytes(archive) if archive.exists() else 0),
        "kept_hands": kept_hands,
        "archive_bytes": folder_bytes(archive) if archive.exists() else 0,
        "archived_hands": archived_hands,
        "log_bytes": log_bytes,
        "log_rows": log_rows,
    }


def report(row: dict[str, float]) -> None:
    hands = row["hands"]
    per_hand = row["written"] / hands
    kb = 1024
    mb = 1024 * 1024
    print(f"{hands} hands, {row['events']} events ({row['events'] / hands:.1f} a hand)")
    print(
        f"written to storage: {per_hand / kb:.1f} KiB a hand "
        f"({per_hand / (row['events'] / hands) / kb:.2f} KiB an event): "
        f"{row['prune_bytes'] / hands / kb:.1f} KiB of it in {row['prunes']} prunes "
        f"(archive and vacuum included), the rest the commits (WAL, checkpoints, ack mark)"
    )
    kept_per_hand = row["journal_bytes"] / max(1, row["kept_hands"])
    archive_per_hand = row["archive_bytes"] / row["archived_hands"]
    log_per_hand = row["log_bytes"] / hands
    print(
        f"on disk: journal {row['journal_bytes'] / kb:.0f} KiB for {row['kept_hands']} hands "
        f"kept ({kept_per_hand / kb:.2f} KiB a hand), archive {archive_per_hand / kb:.2f} KiB "
        f"a hand, text log {log_per_hand / kb:.2f} KiB a hand; "
        f"{row['log_rows']} system log entries in the journal"
    )
    day = HANDS_A_DAY
    print(f"at 30 hands an hour ({day} a day):")
    print(
        f"  written to storage: {per_hand * day / mb:.1f} MiB a day, "
        f"{per_hand * day * DAYS / mb:.0f} MiB in {DAYS} days"
    )
    print(
        f"  journal growth: {kept_per_hand * day / mb:.2f} MiB a day until keep_hands "
        f"(200: {kept_per_hand * 200 / mb:.2f} MiB, reached in {200 / 30:.1f} hours); "
        f"with keep_hands {day * DAYS:,} (all {DAYS} days kept) "
        f"{kept_per_hand * day * DAYS / mb:.0f} MiB"
    )
    print(
        f"  after {DAYS} days: journal {kept_per_hand * 200 / mb:.2f} MiB (keep_hands 200), "
        f"archive {archive_per_hand * (day * DAYS - 200) / mb:.0f} MiB (archive: true), "
        f"text log {log_per_hand * day * DAYS / mb:.0f} MiB at INFO (systemd's journal "
        f"rotates it by its own limits)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    args = parser.parse_args()
    logging.getLogger("gpiozero").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory(prefix="bench-writes-", dir=args.dir) as folder:
        report(run(Path(folder), args.hands))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
