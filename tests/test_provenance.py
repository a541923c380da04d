"""A machine's identity, from a real /proc/cpuinfo captured here."""

from datetime import UTC, datetime
from pathlib import Path

from benchbook.measure import provenance

SAMPLES = Path(__file__).parent / "samples" / "machine"


def test_the_cpu_identity_names_family_model_and_stepping() -> None:
    text = (SAMPLES / "cpuinfo-amd-epyc-family25.txt").read_text()
    assert provenance.cpu_identity(text) == {
        "vendor": "AuthenticAMD",
        "family": "25",
        "model": "17",
        "stepping": "1",
        "mhz": "2600",
        "cache": "1024 KB",
    }


def test_a_cpuinfo_without_those_fields_gives_empty_ones() -> None:
    identity = provenance.cpu_identity("processor\t: 0\nBogoMIPS\t: 48.00\n")
    assert set(identity.values()) == {""}


def test_the_machine_records_its_cpu_and_a_hash_of_its_id_not_the_id() -> None:
    machine = provenance.machine()
    assert machine["cpu"]["family"]
    machine_id = Path("/etc/machine-id").read_text().strip()
    assert len(machine["machine_id"]) == 16 and machine["machine_id"] not in machine_id
    boot_id = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    assert len(machine["boot_id"]) == 16 and machine["boot_id"] not in boot_id
    assert machine["boot_id"] != machine["machine_id"]


def test_the_machine_records_when_it_booted_before_the_run() -> None:
    booted = datetime.strptime(provenance.machine()["booted_at"], "%Y-%m-%dT%H:%M:%SZ")
    uptime_s = float(Path("/proc/uptime").read_text().split()[0])
    since_boot = datetime.now(UTC).replace(tzinfo=None) - booted
    assert abs(since_boot.total_seconds() - uptime_s) < 5
