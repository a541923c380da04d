-- benchbook's wrk request plan: the registry's requests (method, path, headers, body)
-- in the order `order` gives (weighted round robin), `{id}` cycling through the ids of
-- records created before the run, `{unique}` replaced by a value no other request
-- sends. With `capture_status`, the body of every response with that status is kept,
-- one line each, in <capture_prefix>-<thread>.txt: the records a write run created.
-- `plan`, `order`, `nonce`, `capture_status` and `capture_prefix` are set above.

local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("tid", thread_count)
end

local sent = 0
local capture

function init(args)
  if capture_status then
    capture = assert(io.open(capture_prefix .. "-" .. tid .. ".txt", "w"))
    capture:setvbuf("line")
  end
end

-- Plain replacement: no Lua pattern or "%" escapes in what is substituted.
local function replace(text, placeholder, value)
  local from, to = text:find(placeholder, 1, true)
  if not from then return text end
  return text:sub(1, from - 1) .. value .. text:sub(to + 1)
end

function request()
  sent = sent + 1
  local r = plan[order[(sent - 1) % #order + 1]]
  local path = r.path
  if #r.ids > 0 then
    path = replace(path, "{id}", r.ids[(sent + tid) % #r.ids + 1])
  end
  local body = r.body
  if body then
    body = replace(body, "{unique}", nonce .. "-" .. tid .. "-" .. sent)
  end
  return wrk.format(r.method, path, r.headers, body)
end

if capture_status then
  function response(status, headers, body)
    if status == capture_status then
      capture:write(body, "\n")
    end
  end
end
