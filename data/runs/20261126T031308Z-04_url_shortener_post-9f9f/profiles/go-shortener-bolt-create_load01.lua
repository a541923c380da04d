plan = {
  {method = "POST", path = "/api/v1/url/", headers = {["Content-Type"] = "application/json"}, body = "{\"url\": \"https://example.com/{unique}\"}", ids = {}}
}
order = {1}
nonce = "d6381cad"
capture_status = nil

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

-- benchbook's wrk reporter: after the run, print one JSON line with the totals and
-- the latency distribution (microseconds), so the harness never scrapes wrk's text.
local function num(x)
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  return string.format("%.3f", x)
end

done = function(summary, latency, requests)
  local e = summary.errors
  -- When every response was slower than --timeout the histogram is empty: wrk then
  -- reports 0 for mean and percentiles and 2^64 for min. Report "no data" instead.
  local empty = latency.min > latency.max
  local function stat(x)
    if empty then return "null" end
    return num(x)
  end
  local pct = {}
  for _, p in ipairs({50, 75, 90, 99, 99.9}) do
    pct[#pct + 1] = string.format('"%s":%s', tostring(p), stat(latency:percentile(p)))
  end
  io.write(string.format(
    'BENCHBOOK_WRK {"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%s,"mean":%s,"stdev":%s,"max":%s,"percentiles":{%s}}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    stat(latency.min), stat(latency.mean), stat(latency.stdev), stat(latency.max),
    table.concat(pct, ",")))
end

-- With `dump_histogram = true` set before this reporter, a second line lists every
-- distinct latency (µs) with its count, as wrk reports them after its correction, so
-- the harness can undo the correction (see tools.wrk.uncorrected_percentiles).
local reporter_done = done
done = function(summary, latency, requests)
  reporter_done(summary, latency, requests)
  if not dump_histogram then return end
  local parts = {}
  for i = 1, #latency do
    local value, count = latency(i)
    parts[#parts + 1] = string.format("[%d,%d]", value, count)
  end
  io.write('BENCHBOOK_WRK_HIST [' .. table.concat(parts, ",") .. ']\n')
end
