dump_histogram = true
function delay() return 10 end
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
