"""What every job logs about where it ran: the JAX backend, its devices and the host CPU."""

import jax

from physres.jobs import cpu_model, device_description


def test_the_cpu_model_is_read_from_cpuinfo(tmp_path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t: fpu\n"
    )
    assert cpu_model(cpuinfo) == "Intel(R) Xeon(R) Processor"


def test_without_cpuinfo_the_platform_module_answers(tmp_path, monkeypatch):
    monkeypatch.setattr("platform.processor", lambda: "x86_64")
    assert cpu_model(tmp_path / "missing") == "x86_64"
    monkeypatch.setattr("platform.processor", lambda: "")
    assert cpu_model(tmp_path / "missing") is None


def test_a_cpu_device_is_described_with_the_host_cpu():
    description = device_description()
    assert description.startswith(f"{jax.default_backend()}: ")
    if jax.default_backend() == "cpu" and cpu_model():
        assert f"({cpu_model()})" in description
