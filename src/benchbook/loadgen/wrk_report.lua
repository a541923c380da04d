-- benchbook's wrk reporter: after the run, print one JSON line with the totals and
-- the latency distribution (microseconds), so the harness never scrapes wrk's text.
local function num(x)
  if x ~= x or x == math.huge or x == -math.huge then return "null" end
  return string.format("%.3f", x)
end

done = function(summary, latency, requests)
  local e = summary.errors
  local pct = {}
  for _, p in ipairs({50, 75, 90, 99, 99.9}) do
    pct[#pct + 1] = string.format('"%s":%s', tostring(p), num(latency:percentile(p)))
  end
  io.write(string.format(
    'BENCHBOOK_WRK {"duration_us":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%s,"mean":%s,"stdev":%s,"max":%s,"percentiles":{%s}}}\n',
    summary.duration, summary.requests, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    num(latency.min), num(latency.mean), num(latency.stdev), num(latency.max),
    table.concat(pct, ",")))
end
