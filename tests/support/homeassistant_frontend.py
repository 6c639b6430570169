"""Home Assistant's own pages, as a person sees them: a real headless Chromium (the distribution's, driven by
Playwright) on the frontend that Home Assistant serves itself, logged in through its login page with the onboarding
user's name and password. What the pages show is read back from the rendered page (through its shadow roots), and
they are photographed for docs/integrations.md.

    with Frontend(ha) as ui:                                   # a HomeAssistantCore, onboarded
        ui.open(f"/config/devices/device/{device_id}", "Ana points")
        ui.entity_rows()                                       # {"Ana points": "135", "State": "in progress", ...}
        ui.screenshot(Path("build/ha/screenshots/ha-device.png"))
        ui.open("/config/automation/edit/moments", '"twenty" scored')
        ui.trigger_labels()                                    # ['"twenty" scored', ...], as the editor lists them

Nothing here copies the frontend: it is the page Home Assistant serves, and the texts are what that page rendered."""

from __future__ import annotations

import io
from pathlib import Path

from homeassistant_core import PASSWORD, USER, HomeAssistantCore
from PIL import Image
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

CHROMIUM = "/usr/bin/chromium"  # the distribution's (`make test` installs it); Playwright downloads no browser here
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# The text a node renders: its shadow root's (a slot stands for what is assigned to it) or its children's.
DEEP_TEXT = """
const deep = (n) => {
  if (n.nodeType === Node.TEXT_NODE) return n.textContent;
  if (n.nodeType !== Node.ELEMENT_NODE && n.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return "";
  if (n.tagName === "STYLE" || n.tagName === "SCRIPT") return "";
  if (n.tagName === "SLOT") return n.assignedNodes({flatten: true}).map(deep).join(" ");
  return Array.from((n.shadowRoot || n).childNodes).map(deep).join(" ");
};
const text = (n) => (n ? deep(n) : "").replace(/\\s+/g, " ").trim();
"""
# The first element matching a selector anywhere in the page, through the shadow roots.
FIND = """
const deepFind = (sel, root = document) => {
  const hit = root.querySelector(sel);
  if (hit) return hit;
  for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot) { const h = deepFind(sel, el.shadowRoot); if (h) return h; }
  }
  return null;
};
"""


class Frontend:
    def __init__(self, ha: HomeAssistantCore, width: int = 1280, height: int = 900) -> None:
        if not Path(CHROMIUM).exists():
            raise AssertionError(f"Chromium is not installed at {CHROMIUM}: `make test` installs it")
        self.ha = ha
        self.width, self.height = width, height
        self.pw: Playwright | None = None
        self.browser: Browser | None = None
        self._page: Page | None = None

    def __enter__(self) -> Frontend:
        self.pw = sync_playwright().start()
        try:
            self.browser = self.pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            ctx = self.browser.new_context(
                viewport={"width": self.width, "height": self.height},
                device_scale_factor=1,
                locale="en-US",
                timezone_id="UTC",
                reduced_motion="reduce",
            )
            ctx.set_default_timeout(60_000)  # a loaded machine: Home Assistant renders slowly, never this slowly
            self._page = ctx.new_page()
            self.login()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.browser is not None:
            self.browser.close()
            self.browser = None
        if self.pw is not None:
            self.pw.stop()
            self.pw = None

    @property
    def page(self) -> Page:
        assert self._page is not None, "use Frontend in a with block"
        return self._page

    def login(self) -> None:
        """Home Assistant's login page, as a person fills it: it sends the browser back to the frontend with a code,
        which the frontend trades for its tokens; done when the frontend's connection to Home Assistant is up."""
        self.page.goto(self.ha.url + "/")
        self.page.get_by_role("textbox", name="Username").fill(USER)
        self.page.get_by_role("textbox", name="Password").fill(PASSWORD)
        self.page.get_by_role("button", name="Log in").click()
        self.page.wait_for_function("document.querySelector('home-assistant')?.hass?.connected === true")

    def open(self, path: str, shows: str) -> None:
        """Go to a page of the frontend and wait until it shows the text `shows`, then for its cards to settle."""
        self.page.goto(self.ha.url + path)
        self.page.get_by_text(shows, exact=True).first.wait_for()
        self.page.wait_for_timeout(1500)

    def entity_rows(self) -> dict[str, str]:
        """The entity rows of the page (the device page's cards, an entities card): name → the state as shown."""
        rows = self.page.locator("hui-generic-entity-row")
        # the name is the row's own (its shadow root's .info); the state is what the card put into the row's slot
        script = (
            "e => { " + DEEP_TEXT + " return [e.shadowRoot.querySelector('.info')?.title || '', "
            "Array.from(e.childNodes).map(deep).join(' ').replace(/\\s+/g, ' ').trim()]; }"
        )
        out: dict[str, str] = {}
        for i in range(rows.count()):
            name, value = rows.nth(i).evaluate(script)
            out[str(name)] = str(value)
        return out

    def trigger_labels(self) -> list[str]:
        """The automation editor's triggers, in order, each as its row's heading says it (without the device's chip
        beside it)."""
        rows = self.page.locator("ha-automation-trigger-row")
        script = (
            "e => Array.from(e.shadowRoot.querySelector('[slot=header]').childNodes)"
            ".filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent).join('').replace(/\\s+/g, ' ').trim()"
        )
        return [str(rows.nth(i).evaluate(script)) for i in range(rows.count())]

    def card_text(self, selector: str) -> str:
        """Everything a card (the first that matches `selector`) renders, as one line."""
        return str(self.page.locator(selector).first.evaluate("e => { " + DEEP_TEXT + " return text(e); }"))

    def wait_card(self, selector: str, shows: str) -> str:
        """Until the card renders the text `shows` (a chart draws its legend once its data is in); its text."""
        script = "([s, t]) => { " + DEEP_TEXT + FIND + " return text(deepFind(s)).includes(t); }"
        self.page.wait_for_function(script, arg=[selector, shows])
        self.page.wait_for_timeout(1000)
        return self.card_text(selector)

    def screenshot(self, path: Path) -> Path:
        """The viewport as a PNG, checked: that size, and not one flat colour."""
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.page.screenshot(path=str(path))
        with Image.open(io.BytesIO(data)) as img:
            assert img.format == "PNG" and img.size == (self.width, self.height), (img.format, img.size)
            assert img.convert("RGB").getcolors(maxcolors=9) is None, f"{path.name} is (nearly) one flat colour"
        return path
