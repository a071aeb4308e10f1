// Drives `hone acp` as an editor with unsaved buffers and MCP servers would: the client
// offers the fs capabilities, answers `fs/read_text_file` from its buffers (the disk for
// files it has not open) and records `fs/write_text_file` (saving to disk, as editors do),
// and passes MCP servers in `session/new`. Prints what it saw.
const fs = require("fs");
const path = require("path");
const { spawn } = require("child_process");
const { Readable, Writable } = require("stream");
const { pathToFileURL } = require("url");

(async () => {
  const entry = require.resolve("@agentclientprotocol/sdk", { paths: [process.env.NODE_PATH] });
  const acp = await import(pathToFileURL(entry).href);
  const [hone, url, everything] = process.argv.slice(2);
  const root = process.cwd();
  const buffers = { [path.join(root, "greet.txt")]: "hello from the buffer\n" };
  const out = { updates: [], permissions: [], reads: [], writes: [] };

  const child = spawn(hone, ["--provider", "openai", "--base-url", url, "acp"], {
    stdio: ["pipe", "pipe", "inherit"],
    env: process.env,
    cwd: root,
  });
  const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp
    .client({ name: "hone-acp-editor-test" })
    .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
      out.permissions.push(params);
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      out.reads.push(params);
      const held = buffers[params.path];
      return { content: held !== undefined ? held : fs.readFileSync(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      out.writes.push(params);
      buffers[params.path] = params.content;
      fs.writeFileSync(params.path, params.content);
      return {};
    })
    .onNotification(acp.methods.client.session.update, async ({ params }) => {
      out.updates.push(params);
    });

  await app.connectWith(stream, async (ctx) => {
    out.init = await ctx.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
    });
    out.session = await ctx.request(acp.methods.agent.session.new, {
      cwd: root,
      mcpServers: [
        { name: "everything", command: process.execPath, args: [everything, "stdio"], env: [] },
        { name: "missing", command: path.join(root, "no-such-server"), args: [], env: [] },
      ],
    });
    out.prompt = await ctx.request(acp.methods.agent.session.prompt, {
      sessionId: out.session.sessionId,
      prompt: [{ type: "text", text: "say hello from hone in greet.txt" }],
    });
  });
  child.stdin.end();
  out.exit = await exited;
  console.log(JSON.stringify(out));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
