-- Drives Neovim's own LSP client against `qlint server` as a user would, once docs/server.md's
-- snippet (tests/editor/neovim_test.sh runs it as init.lua) has attached qlint to the Python
-- buffer: diagnostics with rule ids and doc links, hover, the preferred quick fix applied to
-- the buffer, and a clean shutdown. Prints "ok - ..." per step; any failure quits with 1.
local TIMEOUT_MS = 120000

local function fail(message)
  io.stderr:write('not ok - ' .. message .. '\n')
  vim.cmd('cquit 1')
end

local function ok(message)
  io.stdout:write('ok - ' .. message .. '\n')
end

-- The first item of `list()` that `matches`, waiting for one to appear (events are handled
-- meanwhile); nil after TIMEOUT_MS.
local function wait_for_item(list, matches)
  local found = nil
  vim.wait(TIMEOUT_MS, function()
    for _, item in pairs(list()) do
      if found == nil and matches(item) then found = item end
    end
    return found ~= nil
  end, 100)
  return found
end

local buffer = vim.api.nvim_get_current_buf()
-- A client attaches once the server has answered `initialize`.
local client = wait_for_item(function() return vim.lsp.buf_get_clients(buffer) end,
                             function(c) return c.name == 'qlint' end)
if client == nil then return fail('the snippet attached no qlint client to ' .. vim.api.nvim_buf_get_name(buffer)) end
ok('the snippet started qlint server and attached it')

-- Diagnostics: pushed by the server after its first check.
local found = wait_for_item(function() return vim.diagnostic.get(buffer) end,
                            function(d) return d.code == 'eq-nonzero-const' end)
if found == nil then return fail('no eq-nonzero-const diagnostic within ' .. TIMEOUT_MS .. ' ms') end
local line = vim.api.nvim_buf_get_lines(buffer, found.lnum, found.lnum + 1, false)[1]
if not line:find('== 1', 1, true) then return fail('the diagnostic is on `' .. line .. '`, not on the comparison') end
local lsp = found.user_data and found.user_data.lsp or {}
if not (lsp.codeDescription and lsp.codeDescription.href or ''):find('eq%-nonzero%-const') then
  return fail('no docs link for the rule')
end
ok('eq-nonzero-const on line ' .. (found.lnum + 1) .. ': ' .. vim.trim(line))

-- Hover on the comparison: the rule's explanation.
vim.api.nvim_win_set_cursor(0, { found.lnum + 1, found.col })
local hovers = vim.lsp.buf_request_sync(buffer, 'textDocument/hover', vim.lsp.util.make_position_params(), TIMEOUT_MS)
local hover_text = ''
for _, answer in pairs(hovers or {}) do
  local contents = answer.result and answer.result.contents
  if type(contents) == 'table' then hover_text = hover_text .. (contents.value or vim.inspect(contents)) end
end
if not hover_text:find('eq%-nonzero%-const') then return fail('hover does not explain the rule: ' .. hover_text) end
ok('hover explains the rule')

-- The preferred quick fix, asked for as `vim.lsp.buf.code_action()` asks (the line's
-- diagnostics turned back into LSP's), and applied as Neovim applies a code action's edit.
local on_line = vim.lsp.diagnostic.get_line_diagnostics(buffer, found.lnum, {}, client.id)
local params = {
  textDocument = { uri = vim.uri_from_bufnr(buffer) },
  range = on_line[1] and on_line[1].range,
  context = { diagnostics = on_line, only = { 'quickfix' } },
}
local answers = vim.lsp.buf_request_sync(buffer, 'textDocument/codeAction', params, TIMEOUT_MS)
local preferred = nil
for _, answer in pairs(answers or {}) do
  for _, action in ipairs(answer.result or {}) do
    if action.isPreferred then preferred = action end
  end
end
if preferred == nil or preferred.edit == nil then return fail('no preferred quick fix with an edit') end
local before = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\n')
vim.lsp.util.apply_workspace_edit(preferred.edit, client.offset_encoding)
local after = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\n')
if after == before then return fail('the quick fix `' .. preferred.title .. '` changed nothing') end
if not after:find('_float', 1, true) then return fail('the quick fix does not compare the float tensor:\n' .. after) end
ok('quick fix applied: ' .. preferred.title)

-- "Fix all" on the source as exported (the findings are the archive's): every safe fix of the
-- file as one edit, which changes more than the one quick fix did.
vim.api.nvim_buf_set_lines(buffer, 0, -1, false, vim.split(before, '\n', true))
local fix_all_params = {
  textDocument = { uri = vim.uri_from_bufnr(buffer) },
  range = { start = { line = 0, character = 0 }, ['end'] = { line = 0, character = 0 } },
  context = { diagnostics = {}, only = { 'source.fixAll.qlint' } },
}
local fix_all = nil
for _, answer in pairs(vim.lsp.buf_request_sync(buffer, 'textDocument/codeAction', fix_all_params, TIMEOUT_MS) or {}) do
  for _, action in ipairs(answer.result or {}) do
    if action.kind == 'source.fixAll.qlint' then fix_all = action end
  end
end
if fix_all == nil or fix_all.edit == nil then return fail('no source.fixAll.qlint action with an edit') end
vim.lsp.util.apply_workspace_edit(fix_all.edit, client.offset_encoding)
local all_fixed = table.concat(vim.api.nvim_buf_get_lines(buffer, 0, -1, false), '\n')
if all_fixed == before or all_fixed == after then
  return fail('fix all changed no more than the quick fix:\n' .. all_fixed)
end
if not all_fixed:find('_float', 1, true) then return fail('fix all does not compare the float tensor:\n' .. all_fixed) end
ok(fix_all.title)

-- Shutdown: the client asks, the server answers and exits.
vim.lsp.stop_client(client.id)
if not vim.wait(TIMEOUT_MS, function() return vim.lsp.client_is_stopped(client.id) end, 100) then
  return fail('the server did not stop')
end
ok('shutdown')
vim.cmd('qall!')
