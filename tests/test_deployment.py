"""docker-compose.yml has the deployment shape the README describes (no Docker engine here)."""
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_services_healthchecks_volumes_and_gpu():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"web", "worker", "gpu-worker", "redis", "postgres"}
    for name, service in services.items():
        assert "healthcheck" in service, name
    assert "-Q gpu" in services["gpu-worker"]["command"] and "-P solo" in services["gpu-worker"]["command"]
    assert "-Q default" in services["worker"]["command"]
    devices = services["gpu-worker"]["deploy"]["resources"]["reservations"]["devices"]
    assert devices[0]["driver"] == "nvidia" and devices[0]["capabilities"] == ["gpu"]
    assert set(compose["volumes"]) >= {"pgdata", "redis", "media"}
    assert services["web"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "CELERY_BROKER_URL" in services["worker"]["environment"]


def test_requirements_are_pinned():
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if line and not line.startswith("-r"):
                assert "==" in line, f"{name}: {line} is not pinned"
    assert "torch==2.13.0" in (ROOT / "requirements.txt").read_text()
