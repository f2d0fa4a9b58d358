-- restartkit lsp in Neovim's built-in LSP client (Debian's neovim, 0.7 and later), headless:
-- open a manifest from examples/, get the diagnostic at its line, apply the quick fix and see
-- it clear, then hover and the what-if command. Prints "ok <step>" lines; exits 1 on a failure.
-- Run: RESTARTKIT_BIN=... nvim --headless --clean -u NONE -c 'luafile check.lua' FILE
local bin = os.getenv('RESTARTKIT_BIN')
local failures = 0

local function check(step, cond, detail)
  if cond then
    io.stdout:write('ok ' .. step .. '\n')
  else
    failures = failures + 1
    io.stdout:write('FAIL ' .. step .. ': ' .. vim.inspect(detail) .. '\n')
  end
end

local function finish()
  io.stdout:write(string.format('%d failed\n', failures))
  io.stdout:flush()
  os.exit(failures == 0 and 0 or 1)
end

local ok, err = pcall(function()
  local buf = vim.api.nvim_get_current_buf()
  local client = vim.lsp.start_client({
    name = 'restartkit',
    cmd = { bin, 'lsp' },
    root_dir = vim.fn.getcwd(),
    settings = { restartkit = { kubernetesVersion = '1.36' } },
  })
  check('client started', client ~= nil, client)
  vim.lsp.buf_attach_client(buf, client)

  local got = vim.wait(20000, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  local diags = vim.diagnostic.get(buf)
  check('a diagnostic', got and #diags == 1, diags)
  local d = diags[1] or {}
  check('at the restartPolicy value', d.lnum == 21 and d.col == 21 and d.end_col == 30, d)
  check('the API server\'s message', (d.message or ''):find('only "Never" is supported when podFailurePolicy is specified', 1, true) ~= nil, d.message)

  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = { start = { line = 21, character = 24 }, ['end'] = { line = 21, character = 24 } },
    context = { diagnostics = {} },
  }
  local answers = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', params, 10000) or {}
  local action
  for _, a in pairs(answers) do
    if a.result and a.result[1] then action = a.result[1] end
  end
  check('a quick fix', action ~= nil and action.kind == 'quickfix', answers)
  vim.lsp.util.apply_workspace_edit(action.edit, 'utf-16')
  check('the fix is in the text', vim.api.nvim_buf_get_lines(buf, 21, 22, false)[1] == '      restartPolicy: Never', vim.api.nvim_buf_get_lines(buf, 21, 22, false))
  local cleared = vim.wait(20000, function() return #vim.diagnostic.get(buf) == 0 end, 50)
  check('the diagnostic clears', cleared, vim.diagnostic.get(buf))

  local hover = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
    textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 11, character = 8 },
  }, 10000) or {}
  local text = ''
  for _, h in pairs(hover) do
    if h.result then text = h.result.contents.value end
  end
  check('hover says which exit codes the rule decides', text:find('container `trainer`: 2–3', 1, true) ~= nil, text)

  local lenses = vim.lsp.buf_request_sync(buf, 'textDocument/codeLens', { textDocument = { uri = vim.uri_from_bufnr(buf) } }, 10000) or {}
  local lens
  for _, l in pairs(lenses) do
    if l.result then lens = l.result[1] end
  end
  check('a what-if lens', lens ~= nil and lens.command.command == 'restartkit.whatIf', lenses)
  local args = vim.deepcopy(lens.command.arguments[1])
  args.exitCode = 2
  args.quiet = true
  local answer = vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', { command = 'restartkit.whatIf', arguments = { args } }, 10000) or {}
  local story = ''
  for _, a in pairs(answer) do
    if a.result then story = a.result.text end
  end
  check('what if trainer exits 2: the Job fails', story:find('job train: FailJob', 1, true) ~= nil, story)
  vim.lsp.stop_client(client)
end)
check('no error', ok, err)
finish()
