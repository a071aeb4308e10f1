// Drives `hone acp` with the official ACP TypeScript SDK client and prints what it saw.
const fs = require("fs");
const path = require("path");
const { spawn } = require("child_process");
const { Readable, Writable } = require("stream");
const { pathToFileURL } = require("url");

(async () => {
  const entry = require.resolve("@agentclientprotocol/sdk", { paths: [process.env.NODE_PATH] });
  const acp = await import(pathToFileURL(entry).href);
  const [hone, url] = process.argv.slice(2);
  const root = process.cwd();
  const out = { updates: [], permissions: [], loaded: [] };
  let updates = out.updates;
  let permission = async () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });

  const start = () => {
    const child = spawn(hone, ["--provider", "openai", "--base-url", url, "acp"], {
      stdio: ["pipe", "pipe", "inherit"],
      env: process.env,
      cwd: root,
    });
    const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    return { child, stream, exited };
  };
  const app = acp
    .client({ name: "hone-acp-test" })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      out.permissions.push(params);
      return permission(params);
    })
    .onNotification(acp.methods.client.session.update, async ({ params }) => {
      updates.push(params);
    });

  const first = start();
  await app.connectWith(first.stream, async (ctx) => {
    out.init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    out.session = await ctx.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const sessionId = out.session.sessionId;
    out.prompt = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [
        { type: "text", text: "greet the whole world in greet.txt" },
        // A 1x1 PNG: the image reaches the model beside the text.
        {
          type: "image",
          mimeType: "image/png",
          data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        },
      ],
    });
    out.greeting = fs.readFileSync(path.join(root, "greet.txt"), "utf8");

    // The next turn asks to write a file; the client cancels while it is asked and
    // answers the pending permission request `cancelled`, as the protocol says.
    let asked;
    const pending = new Promise((resolve) => { asked = resolve; });
    permission = (params) => new Promise((resolve) => asked({ params, resolve }));
    const cancelled = ctx.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write notes.txt" }],
    });
    const question = await pending;
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    question.resolve({ outcome: { outcome: "cancelled" } });
    out.cancelled = await cancelled;
    out.notes = fs.existsSync(path.join(root, "notes.txt"));
    out.mode = await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "auto-edit" });
  });
  first.child.stdin.end();
  out.firstExit = await first.exited;

  // A new editor process loads the saved session: its conversation comes back as updates.
  updates = out.loaded;
  const second = start();
  await app.connectWith(second.stream, async (ctx) => {
    await ctx.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    out.load = await ctx.request(acp.methods.agent.session.load, {
      sessionId: out.session.sessionId,
      cwd: root,
      mcpServers: [],
    });
  });
  second.child.stdin.end();
  out.secondExit = await second.exited;
  console.log(JSON.stringify(out));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
