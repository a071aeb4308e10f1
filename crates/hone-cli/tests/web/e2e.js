// Drives `hone web` in Debian's Chromium (playwright-core, headless) through the scenario
// of crates/hone-cli/tests/web.rs; prints what it saw as one JSON object on stdout.
// Arguments: the URL `hone web` printed, the project root, the screenshot directory.
"use strict";

const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const [url, root, shots] = process.argv.slice(2);
const base = url.split("/?token=")[0];
const WAIT = { timeout: 30000 };
const seen = { frames: [], times: {} };
const started = Date.now();
const mark = (name) => { seen.times[name] = Date.now() - started; };

async function turnEnds(page, count) {
  await page.waitForFunction((n) => document.querySelectorAll(".line.turn-end").length >= n, count, WAIT);
}

async function send(page, text) {
  await page.fill("#input", text);
  await page.press("#input", "Enter");
}

function texts(page, selector) {
  return page.$$eval(selector, (els) => els.map((el) => el.textContent));
}

(async () => {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-background-networking"],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, colorScheme: "light" });
    const page = await context.newPage();
    page.on("websocket", (ws) => ws.on("framereceived", (frame) => seen.frames.push(String(frame.payload))));
    page.on("pageerror", (error) => { seen.pageErrors = (seen.pageErrors || []).concat(String(error)); });

    // The printed URL: the token becomes a cookie and leaves the address bar.
    await page.goto(url);
    await page.waitForFunction(() => location.hash.startsWith("#session="), null, WAIT);
    seen.address = page.url();
    const sessionUrl = page.url();

    // A second tab on the same session follows it.
    const second = await context.newPage();
    await second.goto(sessionUrl);
    mark("second-open");
    await second.waitForSelector("#connection.ok", WAIT);
    await second.waitForFunction(() => document.getElementById("st-model").textContent !== "–", null, WAIT);

    mark("1");
    // 1. A prompt and its streamed, rendered answer.
    await send(page, "say hello");
    await turnEnds(page, 1);
    mark("1-answered");
    seen.images = (await page.$$(".msg.assistant img")).length;
    seen.links = await page.$$eval(".msg.assistant a", (els) => els.map((a) => a.href));
    seen.pwned = await page.evaluate(() => window.pwned === undefined ? null : window.pwned);
    seen.answer = await texts(page, ".msg.assistant");
    seen.bold = await texts(page, ".msg.assistant strong");
    seen.code = await texts(page, ".msg.assistant pre code");
    await second.waitForFunction(() => document.querySelectorAll(".msg.assistant").length >= 1, null, WAIT);
    seen.secondTab = await texts(second, ".msg.assistant");
    mark("1-second");
    seen.status = {
      provider: await page.textContent("#st-provider"),
      model: await page.textContent("#st-model"),
      approval: await page.inputValue("#st-approval"),
      tokens: await page.textContent("#st-tokens"),
    };

    mark("2");
    // 2. An edit asks; the dialog shows the diff; approve; the file changes.
    await send(page, "greet the world");
    await page.waitForSelector("#approval[open] #ap-diff .diff", WAIT);
    await second.waitForSelector("#approval[open]", WAIT);
    seen.approvalTitle = await page.textContent("#ap-title");
    seen.diffAdded = await texts(page, "#ap-diff .add");
    seen.diffRemoved = await texts(page, "#ap-diff .del");
    await page.screenshot({ path: path.join(shots, "approval.png") });
    await page.check('input[name="ap-view"][value="side"]');
    await page.waitForSelector("#ap-diff .diff.side", WAIT);
    seen.sideBySide = await texts(page, "#ap-diff .diff.side > span");
    await page.screenshot({ path: path.join(shots, "approval-side.png") });
    await page.check('input[name="ap-view"][value="unified"]');
    await page.click("#ap-approve");
    await turnEnds(page, 2);
    seen.greetingAfterApprove = fs.readFileSync(path.join(root, "greet.txt"), "utf8");
    await second.waitForFunction(() => !document.querySelector("#approval[open]"), null, WAIT);
    seen.secondDialogClosed = true;
    await second.close();

    mark("3");
    // 3. A write asks; deny it with a reason.
    await send(page, "write some notes");
    await page.waitForSelector("#approval[open]", WAIT);
    await page.fill("#ap-deny-reason", "not today, thanks");
    await page.click("#ap-deny");
    await turnEnds(page, 3);
    seen.notesExist = fs.existsSync(path.join(root, "notes.txt"));
    seen.denied = await texts(page, "details.tool .outcome");
    await page.click("details.tool:has(.outcome:text-matches('wrote')) summary");
    await page.screenshot({ path: path.join(shots, "conversation.png") });

    mark("3b");
    // 3b. The provider rejects a request: retry, skip or abort; retry.
    await send(page, "try again");
    await page.waitForSelector("#choice[open]", WAIT);
    seen.choices = await texts(page, "#ch-buttons button");
    seen.choiceMessage = await page.textContent("#ch-message");
    await page.click("#ch-buttons button:text('retry')");
    await turnEnds(page, 4);
    seen.later = await texts(page, ".msg.assistant");

    mark("3c");
    // 3c. An answer stalls; Esc cancels the turn.
    await send(page, "think at length");
    await page.waitForFunction(() => [...document.querySelectorAll(".msg.assistant")].some((m) => m.textContent.startsWith("Thinking")), null, WAIT);
    seen.partial = (await texts(page, ".msg.assistant")).pop();
    await page.keyboard.press("Escape");
    await turnEnds(page, 5);
    seen.cancelled = (await texts(page, ".line.turn-end")).pop();

    // 3d. Switch the model from the status bar: the window shown is the new model's at once.
    seen.usageBeforeSwitch = await page.textContent("#cx-usage");
    seen.windowBeforeSwitch = await page.getAttribute("#st-context", "title");
    page.once("dialog", (dialog) => dialog.accept("gpt-5-mini"));
    await page.click("#st-model");
    await page.waitForFunction(() => document.getElementById("st-model").textContent === "gpt-5-mini", null, WAIT);
    seen.switchedModel = await page.textContent("#st-model");
    await page.waitForFunction((before) => document.getElementById("cx-usage").textContent !== before, seen.usageBeforeSwitch, WAIT);
    seen.usageAfterSwitch = await page.textContent("#cx-usage");
    seen.windowAfterSwitch = await page.getAttribute("#st-context", "title");
    seen.statusContext = await page.textContent("#st-context");
    seen.barHeight = await page.$eval("#bar", (el) => el.getBoundingClientRect().height);
    seen.barCentres = await page.$$eval("#bar > *, #bar .status > *, #bar .actions > *", (els) => els
      .filter((el) => el.getClientRects().length)
      .map((el) => { const r = el.getBoundingClientRect(); return r.top + r.height / 2; }));
    seen.statusClipped = await page.$eval("#status", (box) => [...box.children]
      .filter((el) => el.getClientRects().length && el.getBoundingClientRect().right > box.getBoundingClientRect().right + 1)
      .map((el) => el.id || el.textContent));
    await page.screenshot({ path: path.join(shots, "status-1200.png"), clip: { x: 0, y: 0, width: 1200, height: 120 } });

    mark("4");
    // 4. Undo takes the approved edit back.
    await page.click("#btn-undo");
    await page.waitForFunction(() => [...document.querySelectorAll(".line")].some((l) => l.textContent.startsWith("undone")), null, WAIT);
    seen.greetingAfterUndo = fs.readFileSync(path.join(root, "greet.txt"), "utf8");

    mark("4b");
    // 4b. The context panel: pin a file (its tokens shown), find a symbol; the inspector
    // with the message being typed, then that message sent; unpin from the inspector.
    await page.click("#btn-context");
    await page.fill("#cx-pattern", "greet.txt");
    await page.click("#cx-pin button");
    await page.waitForSelector('#cx-files li[data-path="greet.txt"]', WAIT);
    seen.pinned = await texts(page, "#cx-files li");
    seen.usage = await page.textContent("#cx-usage");
    await page.fill("#cx-prefix", "greet_");
    await page.click("#cx-symbols button");
    await page.waitForSelector("#cx-found li", WAIT);
    seen.symbols = await texts(page, "#cx-found li");
    await page.fill("#input", "thanks");
    await page.check("#cx-draft");
    await page.click("#cx-inspect");
    await page.waitForSelector('#cx-parts li[data-kind="tracked"]', WAIT);
    seen.inspected = await page.$$eval("#cx-parts li.part", (els) => els.map((li) => ({
      kind: li.dataset.kind, tokens: Number(li.dataset.tokens), label: li.querySelector(".row > span").textContent,
    })));
    seen.inspectedTotal = Number(await page.getAttribute("#cx-total", "data-tokens"));
    await page.screenshot({ path: path.join(shots, "context.png") });
    await page.press("#input", "Enter");
    await turnEnds(page, 6);
    seen.usageAfter = await page.textContent("#cx-usage");
    await page.uncheck("#cx-draft");
    await page.waitForSelector('#cx-parts li[data-kind="tracked"] button', WAIT);
    await page.click('#cx-parts li[data-kind="tracked"] button');
    await page.waitForSelector("#cx-files li.muted", WAIT);
    await page.click("#btn-context");

    mark("4d");
    // 4d. A proposed file approved in an edited version (Alt+E opens the editor).
    await send(page, "write a poem");
    await page.waitForSelector("#approval[open]", WAIT);
    await page.keyboard.press("Alt+E");
    await page.waitForSelector("#ap-edit:not([hidden])", WAIT);
    seen.editProposed = await page.inputValue("#ap-edit");
    await page.fill("#ap-edit", "violets are blue\n");
    await page.click("#ap-approve");
    await turnEnds(page, 7);
    seen.poem = fs.readFileSync(path.join(root, "poem.txt"), "utf8");

    mark("4e");
    // 4e. The logs panel: the tool calls so far; a turn that reads a file holding the API
    // key and a token-shaped value appends its call; the entries open onto their JSON,
    // redacted; the model requests and responses.
    await page.click("#btn-logs");
    await page.waitForSelector('#lg-list li[data-label="edit_file"]', WAIT);
    seen.toolLogBefore = await page.$$eval("#lg-list li", (els) => els.map((li) => li.dataset.label));
    await send(page, "read the config");
    await turnEnds(page, 8);
    await page.waitForSelector('#lg-list li[data-label="read_file"]', WAIT);
    seen.toolLogAfter = await page.$$eval("#lg-list li", (els) => els.map((li) => li.dataset.label));
    seen.toolLogLine = await page.textContent('#lg-list li[data-label="read_file"] summary');
    await page.click('#lg-list li[data-label="read_file"] summary');
    seen.toolLogJson = await page.textContent('#lg-list li[data-label="read_file"] pre');
    await page.screenshot({ path: path.join(shots, "logs.png") });
    await page.check('input[name="lg-kind"][value="comms"]');
    await page.waitForSelector('#lg-list li[data-label="response"]', WAIT);
    seen.commsLog = await page.$$eval("#lg-list li summary", (els) => els.map((s) => ({
      label: s.querySelector(".label").textContent, summary: s.querySelector(".sum").textContent, size: s.querySelector(".size").textContent,
    })));
    const lastRequest = page.locator('#lg-list li[data-label="request"]').last();
    await lastRequest.locator("summary").click();
    seen.commsLogJson = await lastRequest.locator("pre").textContent();
    await page.screenshot({ path: path.join(shots, "logs-comms.png") });
    seen.logsPanelText = await page.textContent("#logs");
    await page.click("#btn-logs");

    mark("4c");
    // 4c. The project: the tree, a file opened read-only with its outline, a secret file
    // refused, the repository map.
    await page.click("#btn-project");
    await page.waitForSelector('#pj-tree li[data-path="util.py"]', WAIT);
    seen.tree = await page.$$eval("#pj-tree li[data-path]", (els) => els.map((li) => li.dataset.path));
    await page.click('#pj-tree li[data-path="util.py"] button');
    await page.waitForSelector("#viewer[open] #vw-text .l", WAIT);
    seen.viewerPath = await page.textContent("#vw-path");
    seen.viewerLines = await texts(page, "#vw-text .l");
    seen.outline = await texts(page, "#vw-outline button");
    if (seen.outline.length) {
      await page.click("#vw-outline button");
      seen.outlineLine = await page.$eval("#vw-text .l.at .n", (el) => el.textContent);
    }
    await page.screenshot({ path: path.join(shots, "project.png") });
    await page.click("#vw-close");
    await page.click('#pj-tree li[data-path=".env"] button');
    await page.waitForFunction(() => [...document.querySelectorAll(".line.error")].some((l) => l.textContent.includes("may hold secrets")), null, WAIT);
    seen.secretOpen = await page.evaluate(() => !!document.querySelector("#viewer[open]"));
    await page.click("#pj-map-box summary");
    await page.waitForFunction(() => document.getElementById("pj-map").textContent !== "Not loaded.", null, WAIT);
    seen.map = await page.textContent("#pj-map");
    await page.click("#btn-project");

    mark("5");
    // 5. A new session, then the first one resumed from the list, then a reload.
    const first = sessionUrl.split("#session=")[1];
    await page.click("#btn-new");
    await page.waitForFunction((id) => location.hash.startsWith("#session=") && !location.hash.endsWith(id), first, WAIT);
    seen.emptyAfterNew = (await texts(page, ".msg")).length;
    await page.click("#btn-sessions");
    await page.waitForSelector(`#session-list li[data-session="${first}"]`, WAIT);
    seen.listed = await texts(page, "#session-list .title");
    await page.click("#btn-theme");
    await page.screenshot({ path: path.join(shots, "sessions-dark.png") });
    await page.click(`#session-list li[data-session="${first}"] button:text("Resume")`);
    await page.waitForFunction((id) => location.hash.endsWith(id), first, WAIT);
    await page.waitForSelector(".msg.assistant", WAIT);
    seen.resumed = await texts(page, ".msg");
    await page.reload();
    await page.waitForSelector(".msg.assistant", WAIT);
    seen.reloadedHash = new URL(page.url()).hash;
    seen.reloaded = await texts(page, ".msg");
    seen.theme = await page.evaluate(() => document.documentElement.dataset.theme);

    // 5b. A malformed message on the page's socket: an error, and the socket goes on.
    await page.evaluate(() => state.socket.send("{not json"));
    await page.waitForFunction(() => [...document.querySelectorAll(".line.error")].some((l) => l.textContent.startsWith("error: ")), null, WAIT);
    seen.badMessage = (await texts(page, ".line.error")).pop();
    seen.afterBadMessage = (await page.evaluate(() => call("settings.get", {}))).type;

    mark("6");
    // 6. Without the token, or from another origin: refused.
    seen.wrongToken = await page.evaluate(async () => (await fetch("/?token=wrong")).status);
    const stranger = await browser.newContext();
    const strangerPage = await stranger.newPage();
    seen.noToken = (await strangerPage.goto(base + "/")).status();
    seen.noTokenScript = (await strangerPage.goto(base + "/app.js")).status();
    await stranger.close();
    const foreign = await context.newPage();
    await foreign.goto("about:blank");
    seen.foreignSocket = await foreign.evaluate((address) => new Promise((resolve) => {
      const socket = new WebSocket(address.replace("http", "ws") + "/ws");
      socket.onopen = () => resolve("open");
      socket.onclose = (event) => resolve("closed " + event.code);
    }), base);
    mark("end");
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(seen));
})().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + "\n" + JSON.stringify(seen) + "\n");
  process.exit(1);
});
