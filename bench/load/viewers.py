"""`make load`: one viewer, in a browser tab (:class:`Viewer`) or on Streamlit's websocket protocol without a
browser (:class:`WsViewer`): the same tour of the pages, the same inputs, the same final check."""

from __future__ import annotations

import asyncio
import os
import random
import re
import time

from bench.load.config import (
    FILTER_EUR,
    LIVE,
    NAV,
    OFFER_COUNT,
    PAGES,
    SCORING_VERDICT,
    TCO_HEADLINE,
    WORKLOAD_VERDICT,
    Report,
)
from bench.load.probes import descendants_cpu_s
from bench.load.steps import record_error, snapshot, wait_idle


class Viewer:
    def __init__(self, n: int, page, url: str, report: Report, timeout_ms: float):
        self.n, self.page, self.url, self.report, self.timeout = n, page, url, report, timeout_ms

    def err(self, where: str, exc: BaseException) -> None:
        record_error(self.report, f"viewer {self.n} {where}", exc)

    async def visible(self, locator) -> None:
        from playwright.async_api import expect

        await expect(locator).to_be_visible(timeout=self.timeout)

    async def snap(self, what: str) -> None:
        await snapshot(self.page, self.report, f"viewer{self.n}-{what}")

    async def discover(self) -> None:
        """The pages the sidebar lists, as URL paths in their order (once per run, by the first viewer)."""
        if self.report.pages:
            return
        hrefs = await self.page.locator(f"{NAV} a").evaluate_all("links => links.map(a => a.href)")
        if self.report.pages:  # another viewer got there first
            return
        self.report.nav_pages[:] = [h.rstrip("/").rsplit("/", 1)[-1] if h.rstrip("/") != self.url else "" for h in hrefs]
        wanted = self.report.config.pages
        self.report.pages[:] = [p for p in self.report.nav_pages if wanted is None or p in wanted]
        if self.report.config.verbose:
            print("pages:", self.report.pages, flush=True)

    async def open(self, name: str, first: bool, record: bool = True) -> None:
        from playwright.async_api import expect

        page = self.page
        previous = (await page.locator("h1").first.inner_text()) if not first and await page.locator("h1").count() else None
        t0 = time.perf_counter()
        if first:
            await page.goto(f"{self.url}/{name}", timeout=self.timeout)
        else:
            await page.locator(f"{NAV} a").nth(self.report.nav_pages.index(name)).click()
        if name in PAGES:
            title, key = PAGES[name]
            await self.visible(page.get_by_role("heading", level=1, name=title))
            await self.visible(page.locator(key).first)
        else:  # a page this script does not know: its own h1, then nothing stale or still a placeholder
            await expect(page).to_have_url(re.compile(rf"/{re.escape(name)}$"), timeout=self.timeout)
            h1 = page.locator("h1").first
            await self.visible(h1)
            if previous:
                await expect(h1).not_to_have_text(previous, timeout=self.timeout)
            await expect(page.locator('[data-stale="true"], [data-testid="stSkeleton"]')).to_have_count(
                0, timeout=self.timeout)
        if record:
            self.report.loads[name].append(time.perf_counter() - t0)

    async def interact(self, name: str) -> None:
        from playwright.async_api import expect

        page, timeout = self.page, self.timeout
        if name in ("providers", "tco", "workload", "scoring"):
            # The page's run has finished (its chart shows before the run ends): the change is a run of its own,
            # timed as an input by the server too, not merged into the page load (bench/timed_server.py).
            await wait_idle(page, timeout)
        if name == "providers":
            headline = page.locator(LIVE).filter(has_text=OFFER_COUNT).first
            await self.visible(headline)
            before = int(OFFER_COUNT.match(await headline.inner_text()).group(1))
            # The EU data centre toggle: on (the client brief's default) or off, flipping it changes the count.
            await page.locator(".st-key-prov_eu label").first.click()
            t0 = time.perf_counter()
            await expect(headline).not_to_have_text(re.compile(rf"^{before} offers"), timeout=timeout)
        elif name == "tco":
            headline = page.locator(LIVE).filter(has_text=TCO_HEADLINE).first
            await self.visible(headline)
            pct = int(re.search(r" at (\d+)% utilisation", await headline.inner_text()).group(1))
            target, key = (pct - 5, "ArrowLeft") if pct > 20 else (pct + 5, "ArrowRight")
            slider = page.locator(".st-key-_tco_utilisation_fraction").get_by_role("slider")
            await slider.focus()
            for _ in range(5):
                await page.keyboard.press(key)
            t0 = time.perf_counter()
            await self.visible(page.locator(LIVE).filter(
                has_text=re.compile(rf"^Over \d+ (years|months) at {target}% utilisation, ")).first)
            await self.visible(page.locator(f"{LIVE}.st-key-tco_break_even_chart").filter(has_text=f"you: {target}%").first)
        elif name == "workload":
            verdict = page.locator(LIVE).filter(has_text=WORKLOAD_VERDICT).first
            await self.visible(verdict)
            before = await verdict.inner_text()
            gpus = page.locator(".st-key-_wl_training_n_gpus input")
            new = "256" if await gpus.input_value() == "128" else "128"
            await gpus.fill(new)
            await gpus.press("Enter")
            t0 = time.perf_counter()
            await expect(verdict).not_to_have_text(before, timeout=timeout)
        elif name == "scoring":
            verdict = page.locator(LIVE).filter(has_text=SCORING_VERDICT).first
            chart = page.locator(f"{LIVE}.st-key-sc_contributions").first
            await self.visible(verdict)
            before, chart_before = await verdict.inner_text(), await chart.inner_text()
            slider = page.locator(".st-key-_sc_weight_points_price_eur_per_gpu_hour").get_by_role("slider")
            value = float(await slider.input_value())
            key = "ArrowRight" if value <= 90 else "ArrowLeft"
            await slider.focus()
            for _ in range(5):
                await page.keyboard.press(key)
            t0 = time.perf_counter()
            await expect(verdict).not_to_have_text(before, timeout=timeout)
            await expect(chart).not_to_have_text(chart_before, timeout=timeout)
        else:
            return
        self.report.interactions[name].append(time.perf_counter() - t0)

    async def tour(self, round_no: int) -> None:
        if round_no == 0:
            try:
                await self.open("", first=True)
                await self.discover()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.err("first load", exc)
                await self.snap("first-load")
                return
        for name in self.report.pages:
            if round_no == 0 and name == "":
                continue  # home: just loaded
            if self.report.config.verbose:
                cpu = descendants_cpu_s(os.getpid(), self.report.server_pid)
                print(f"{time.strftime('%H:%M:%S')} viewer {self.n} round {round_no + 1} {name or 'home'} "
                      f"(browser CPU so far {cpu:.1f} s)", flush=True)
            try:
                await self.open(name, False)
                await self.interact(name)
                if await self.page.locator('[data-testid="stException"]').count():
                    text = await self.page.locator('[data-testid="stException"]').first.inner_text()
                    raise RuntimeError(f"exception shown on the page: {text[:160]}")
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a failed step is counted, then the tour goes on from a fresh load
                self.err(f"round {round_no + 1} {name or 'home'}", exc)
                await self.snap(f"round{round_no + 1}-{name or 'home'}")
                try:
                    await self.page.goto(self.url, timeout=self.timeout)
                except Exception as exc2:
                    self.err(f"round {round_no + 1} reload after error", exc2)

    async def sees_committed_prices(self, n_offers: int, n_providers: int) -> bool:
        """In this viewer's own long-lived session: Providers, max price FILTER_EUR → only the edited offers."""
        from playwright.async_api import expect

        page = self.page
        try:
            t0 = time.perf_counter()
            await self.open("providers", first=False, record=False)
            # Back to the page's default filters (the client brief's), which the edited offers pass.
            await page.locator(".st-key-prov_clear button").click()
            await wait_idle(page, self.timeout)
            box = page.locator(".st-key-prov_maxprice input").first
            await self.visible(box)
            await box.fill(str(FILTER_EUR))
            await box.press("Enter")
            await expect(page.locator(LIVE).filter(has_text=OFFER_COUNT).first).to_have_text(
                re.compile(rf"^{n_offers} offers? from {n_providers} providers?\b"), timeout=self.timeout)
            self.report.final_checks.append(time.perf_counter() - t0)
            return True
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.err("final check (committed prices)", exc)
            await self.snap("final-check")
            return False


class WsViewer:
    """A viewer without a browser (``--ws-viewers``): the same tour, inputs and final check as :class:`Viewer`,
    in one Streamlit session kept over the websocket protocol (bench/ws_viewer.py), each result read from the
    run's messages instead of the screen. When its socket drops (a killed replica) it reconnects as the
    browser does (same route cookie, the address's ``?s=`` scenario), checks that its scenario came back (the
    TCO utilisation it last set) and goes on with the step that failed."""

    def __init__(self, n: int, url: str, report: Report, timeout_s: float):
        from bench.ws_viewer import ProtocolViewer

        self.n, self.report = n, report
        self.session = ProtocolViewer(url, timeout_s)
        self._random = random.Random(n)  # think times: the same sequence on every run
        #: The TCO utilisation (fraction) this session last saw applied: part of its scenario, so of its ``?s=``.
        self.utilisation: float | None = None

    def err(self, where: str, exc: BaseException) -> None:
        record_error(self.report, f"ws viewer {self.n} {where}", exc)

    async def _step(self, make):
        """Run ``make()`` (a coroutine factory); if the socket dropped, reconnect, check the scenario, retry once."""
        from bench.ws_viewer import SessionDropped

        page = self.session.page
        try:
            return await make()
        except SessionDropped:
            await self.reconnected()
            if self.session.page != page:
                await self.session.goto(page)
            return await make()

    async def reconnected(self):
        """The socket dropped: reconnect (bench/ws_viewer.py), count it, check the scenario came back."""
        result = await self.session.reconnect(time.monotonic())
        self.report.ws_reconnects.append(self.session.reconnects[-1])
        await self.check_scenario()
        return result

    async def check_scenario(self) -> None:
        """After a reconnect: the new session shows this session's own scenario (from the URL), not the default."""
        want = self.utilisation
        if want is None:
            return
        result = await self.session.goto("tco")
        shown = result.text(TCO_HEADLINE)
        ok = shown is not None and f" at {round(100 * want)}% utilisation" in shown
        self.report.ws_scenarios_kept.append(ok)
        if not ok:
            raise RuntimeError(f"after the reconnect TCO shows {shown!r}, not this session's "
                               f"{round(100 * want)}% utilisation")

    async def think(self) -> None:
        """A user reads a result before the next click: uniform between half and 1.5 times ``think_s``."""
        mean = self.report.config.think_s
        if mean > 0:
            await asyncio.sleep(mean * self._random.uniform(0.5, 1.5))

    async def open(self, name: str) -> None:
        await self.think()
        result = await self._step(lambda: self.session.goto(name))
        self.report.ws_loads[name].append(result.seconds)

    async def interact(self, name: str) -> None:
        from bench.ws_viewer import widget_value

        s = self.session
        last = s.last
        if name in ("providers", "tco", "workload", "scoring"):
            await self.think()
        if name == "providers":
            before = _offer_count(last)
            after = await self._step(lambda: s.set("prov_eu", not widget_value(s.last.widget("prov_eu"))))
            if _offer_count(after) == before:
                raise RuntimeError(f"the EU toggle left the offer count at {before}")
        elif name == "tco":
            head = last.text(TCO_HEADLINE)
            pct = int(re.search(r" at (\d+)% utilisation", head or "").group(1))
            value = float(widget_value(last.widget("_tco_utilisation_fraction"))[0])
            target = round(value - 0.05 if pct > 20 else value + 0.05, 2)
            after = await self._step(lambda: s.set("_tco_utilisation_fraction", [target]))
            shown = after.text(TCO_HEADLINE) or ""
            if f" at {round(100 * target)}% utilisation" not in shown:
                raise RuntimeError(f"utilisation set to {target:.0%}, the headline says {shown[:80]!r}")
            self.utilisation = target
        elif name == "workload":
            before = last.text(WORKLOAD_VERDICT)
            new = 256 if widget_value(last.widget("_wl_training_n_gpus")) == 128 else 128
            after = await self._step(lambda: s.set("_wl_training_n_gpus", new))
            if after.text(WORKLOAD_VERDICT) in (None, before):
                raise RuntimeError(f"GPUs set to {new}, the verdict did not change: {before!r}"[:200])
        elif name == "scoring":
            before, chart = last.text(SCORING_VERDICT), last.chart("sc_contributions")
            value = float(widget_value(last.widget("_sc_weight_points_price_eur_per_gpu_hour"))[0])
            new = value + 5 if value <= 90 else value - 5
            after = await self._step(lambda: s.set("_sc_weight_points_price_eur_per_gpu_hour", [new]))
            if after.text(SCORING_VERDICT) in (None, before) or after.chart("sc_contributions") == chart:
                raise RuntimeError(f"price weight set to {new:.0f}, the verdict or chart did not change")
        else:
            return
        self.report.ws_inputs[name].append(s.last.seconds)

    async def tour(self, round_no: int) -> None:
        if round_no == 0:
            try:
                from bench.ws_viewer import SessionDropped

                try:
                    result = await self.session.open("")
                except SessionDropped:
                    result = await self.reconnected()
                self.report.ws_loads[""].append(result.seconds)
                if not self.report.pages:  # the first session to get here names the pages (as Viewer.discover)
                    self.report.nav_pages[:] = list(self.session.hashes)
                    wanted = self.report.config.pages
                    self.report.pages[:] = [p for p in self.report.nav_pages if wanted is None or p in wanted]
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.err("first load", exc)
                return
        for name in list(self.report.pages):
            if round_no == 0 and name == "":
                continue
            try:
                await self.open(name)
                await self.interact(name)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # counted; the tour goes on with the next page
                self.err(f"round {round_no + 1} {name or 'home'}", exc)

    async def sees_committed_prices(self, n_offers: int, n_providers: int) -> bool:
        """In this session: Providers, "Clear filters", max price FILTER_EUR → exactly the edited offers."""
        s = self.session
        try:
            t0 = time.perf_counter()
            await self._step(lambda: s.goto("providers"))
            await self._step(lambda: s.set("prov_clear", True))
            result = await self._step(lambda: s.set("prov_maxprice", FILTER_EUR))
            shown = result.text(OFFER_COUNT)
            if not shown or not re.match(rf"{n_offers} offers? from {n_providers} providers?\b", shown):
                raise RuntimeError(f"expected {n_offers} offers from {n_providers} providers, saw {shown!r}"[:200])
            self.report.final_checks.append(time.perf_counter() - t0)
            return True
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.err("final check (committed prices)", exc)
            return False
        finally:
            await s.close()


def _offer_count(result) -> int:
    shown = result.text(OFFER_COUNT)
    if shown is None:
        raise RuntimeError("the Providers page shows no offer count")
    return int(OFFER_COUNT.match(shown).group(1))
