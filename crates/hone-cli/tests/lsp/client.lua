-- Drives `hone lsp` from Neovim's own LSP client (headless): opens LSP_FILE, asks for a
-- completion at LSP_LINE:LSP_COLUMN and inserts it, then (unless LSP_NO_ACTION is set) asks
-- for the code actions of the first three lines, runs "hone: refactor…" with LSP_INSTRUCTION
-- and lets Neovim apply the server's workspace/applyEdit. What it saw goes to LSP_OUT as JSON.
local env = function(name) return os.getenv(name) end
local result = { messages = {} }

local function finish()
  local file = io.open(env('LSP_OUT'), 'w')
  file:write(vim.fn.json_encode(result))
  file:close()
  vim.cmd('qall!')
end

local ok, failure = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(env('LSP_FILE')))
  local buf = vim.api.nvim_get_current_buf()
  local id = vim.lsp.start_client({
    name = 'hone',
    cmd = vim.fn.json_decode(env('HONE_CMD')),
    root_dir = env('LSP_ROOT'),
    handlers = {
      ['window/showMessage'] = function(_, params)
        table.insert(result.messages, params.message)
      end,
    },
  })
  vim.lsp.buf_attach_client(buf, id)
  local client
  vim.wait(20000, function()
    client = vim.lsp.get_client_by_id(id)
    return client ~= nil and client.server_capabilities ~= nil and client.initialized ~= false
  end, 50)
  result.server = client.server_capabilities ~= nil
  vim.wait(500)

  -- Completion at the cursor, inserted with the item's text edit.
  local uri = vim.uri_from_bufnr(buf)
  local position = { line = tonumber(env('LSP_LINE')), character = tonumber(env('LSP_COLUMN')) }
  local answer = client.request_sync('textDocument/completion',
    { textDocument = { uri = uri }, position = position }, 120000, buf)
  result.completion_error = answer and answer.err and answer.err.message or nil
  local items = answer and answer.result or {}
  if items.items then items = items.items end
  if items[1] then
    result.completion = items[1].textEdit.newText
    vim.lsp.util.apply_text_edits({ items[1].textEdit }, buf, 'utf-16')
  end
  result.after_completion = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')

  if env('LSP_NO_ACTION') == nil then
    vim.cmd('write')
    local range = { start = { line = 0, character = 0 }, ['end'] = { line = 2, character = 0 } }
    local actions = client.request_sync('textDocument/codeAction',
      { textDocument = { uri = uri }, range = range, context = { diagnostics = {} } }, 20000, buf)
    result.actions = {}
    local refactor
    for _, action in ipairs(actions.result or {}) do
      table.insert(result.actions, action.title)
      if action.command and action.command.command == 'hone.refactor' then refactor = action.command end
    end
    refactor.arguments[1].instruction = env('LSP_INSTRUCTION')
    local done = false
    client.request('workspace/executeCommand', refactor, function(err, answer_)
      result.command_error = err and err.message or nil
      result.command = answer_
      done = true
    end, buf)
    vim.wait(120000, function() return done end, 50)
    result.after_action = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
  end
  client.stop()
end)
if not ok then result.failure = tostring(failure) end
finish()
