"""Seed 002's price list: "Custom domain: 60 euros per month per extra domain". A project's extra
custom domains are a control-plane setting, billed on the fake's clock like storage (domain-months
of 30 days) and reported apart from the dollar costs, in euros."""

from __future__ import annotations

import pytest

from fakes.video import VideoFake

DAY = 86_400
MONTH = 30 * DAY


def _figures(fake: VideoFake, project_id: str) -> dict[str, object]:
    report: dict[str, object] = fake.usage(project_id)["projects"][project_id]
    return report


def test_extra_custom_domains_are_billed_on_the_clock_at_60_euros_a_month() -> None:
    fake = VideoFake(seed=0)
    project = fake.create_project()["project_id"]
    quiet = fake.create_project()["project_id"]
    assert _figures(fake, project)["usage"]["extra_custom_domains"] == 0  # type: ignore[index]
    fake.set_custom_domains(project, 2)
    fake.advance(MONTH // 2)  # two domains for half a month: one domain-month
    fake.set_custom_domains(project, 1)
    fake.advance(MONTH)  # then one for a month
    report = _figures(fake, project)
    assert report["usage"]["extra_custom_domains"] == 1  # type: ignore[index]
    assert report["usage"]["custom_domain_months"] == pytest.approx(2.0)  # type: ignore[index]
    assert report["cost_eur"] == {"custom_domains": pytest.approx(120.0), "total": pytest.approx(120.0)}
    assert report["prices_eur"] == {"custom_domain_month": 60.0}
    assert report["cost_usd"]["total"] == 0.0  # type: ignore[index]  # no currency is converted
    assert _figures(fake, quiet)["cost_eur"] == {"custom_domains": 0.0, "total": 0.0}


def test_the_control_plane_sets_a_project_s_extra_domains_and_the_state_keeps_them() -> None:
    fake = VideoFake(seed=0, custom_domain_month_eur=55.0)
    with fake.client() as control:
        made = control.post("/_fake/projects", json={"custom_domains": 3})
        assert made.status_code == 201 and made.json()["custom_domains"] == 3
        project = made.json()["project_id"]
        fake.advance(DAY * 10)
        changed = control.patch(f"/_fake/projects/{project}", json={"custom_domains": 0})
        assert changed.status_code == 200 and changed.json()["custom_domains"] == 0
        assert control.patch(f"/_fake/projects/{project}", json={"keeps_discarded": True}).status_code == 200
        for bad in ({"custom_domains": -1}, {"custom_domains": "2"}, {"custom_domains": 1.5},
                    {"custom_domains": 10_001}, {"custom_domains": True}, {}):
            assert control.patch(f"/_fake/projects/{project}", json=bad).status_code == 400, bad
        for bad in ({"custom_domains": -2}, {"custom_domains": {}}, {"custom_domains": []}, {"custom_domains": ""}):
            assert control.post("/_fake/projects", json=bad).status_code == 400, bad
        assert control.patch("/_fake/projects/nope", json={"custom_domains": 1}).status_code == 404
        usage = control.get("/_fake/usage", params={"project": project}).json()["projects"][project]
    assert usage["usage"]["custom_domain_months"] == pytest.approx(1.0)  # three domains for ten days
    assert usage["cost_eur"]["custom_domains"] == pytest.approx(55.0)
    fake.set_custom_domains(project, 1)
    fake.advance(DAY * 3)
    copy = VideoFake(seed=0, custom_domain_month_eur=55.0)
    copy.import_state(fake.export_state())
    copy.advance(DAY * 3)
    assert _figures(copy, project)["usage"]["custom_domain_months"] == pytest.approx(1.2)  # type: ignore[index]
