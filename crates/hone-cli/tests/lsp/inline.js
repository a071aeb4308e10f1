// Drives `hone lsp` with the vscode-jsonrpc client (the library VS Code's language client is
// built on): initialize, open a file, textDocument/inlineCompletion at a position, shutdown.
// Usage: node inline.js HONE_CMD_JSON FILE LINE COLUMN; prints what it saw as JSON.
const { spawn } = require("child_process");
const fs = require("fs");
const rpc = require("vscode-jsonrpc/node");

async function main() {
  const [command, file, line, column] = process.argv.slice(2);
  const [program, ...args] = JSON.parse(command);
  const child = spawn(program, args, { stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(child.stdout),
    new rpc.StreamMessageWriter(child.stdin),
  );
  connection.onRequest("workspace/applyEdit", () => ({ applied: false }));
  connection.listen();
  const uri = "file://" + file;
  const init = await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: "file://" + process.cwd(),
    capabilities: {},
  });
  await connection.sendNotification("initialized", {});
  await connection.sendNotification("textDocument/didOpen", {
    textDocument: { uri, languageId: "rust", version: 1, text: fs.readFileSync(file, "utf8") },
  });
  const inline = await connection.sendRequest("textDocument/inlineCompletion", {
    textDocument: { uri },
    position: { line: Number(line), character: Number(column) },
    context: { triggerKind: 1 },
  });
  await connection.sendRequest("shutdown");
  await connection.sendNotification("exit");
  connection.dispose();
  child.stdin.end();
  console.log(JSON.stringify({ capabilities: init.capabilities, inline }));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
