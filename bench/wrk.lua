-- One endpoint under load, for bench/run.py. Arguments after wrk's "--":
--   check STATUS                  every answer must have this status
--   save FILE NUMBER THREADS SHOWN
--                                 POST deal NUMBER to a match of its own per request, the sheet
--                                 URLs read from FILE and shared out among the THREADS threads,
--                                 as HTMX does; an answer must be a redirect to the sheet
--                                 whose address says the deal was saved; a thread
--                                 that has used up its URLs counts each further request as
--                                 "exhausted" (and its answer as bad: the deal is taken).
--                                 SHOWN is the revision the phone was shown (every match
--                                 of the pool has the same): the answer adds the new row.
-- done() prints one line of JSON: counts, and latencies in microseconds.

local threads = {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("id", #threads)
end

function init(args)
  mode = args[1]
  good, bad, sent, exhausted = 0, 0, 0, 0
  if mode == "check" then
    expected = tonumber(args[2])
    return
  end
  number, shown = args[3], args[5]
  paths = {}
  local every, line_number = tonumber(args[4]), 0
  for line in io.lines(args[2]) do
    if line_number % every == id - 1 then
      table.insert(paths, line)
    end
    line_number = line_number + 1
  end
end

function request()
  if mode == "check" then
    return wrk.request()
  end
  sent = sent + 1
  if sent > #paths then
    exhausted = exhausted + 1
  end
  local path = paths[math.min(sent, #paths)]
  local body = "number=" .. number .. "&key=wrk-" .. id .. "-" .. sent
    .. "&kind=normal&card_points_0=6&card_points_1=5&declared_points_0=0&declared_points_1=0"
    .. "&typing=0&drawn_blank=1&shown=" .. shown
  return wrk.format("POST", path .. "deals", nil, body)
end

function response(status, headers, body)
  local ok
  if mode == "check" then
    ok = status == expected
  else
    -- Saved, and said so: the save redirects to the sheet, whose address says it.
    local location = headers["Location"] or headers["location"] or ""
    ok = status == 302 and location:find("saved=", 1, true) ~= nil
  end
  if ok then good = good + 1 else bad = bad + 1 end
end

function done(summary, latency, requests)
  local good_total, bad_total, exhausted_total = 0, 0, 0
  for _, thread in ipairs(threads) do
    good_total = good_total + thread:get("good")
    bad_total = bad_total + thread:get("bad")
    exhausted_total = exhausted_total + thread:get("exhausted")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests": %d, "microseconds": %d, "good": %d, "bad": %d, "exhausted": %d, '
      .. '"socket_errors": %d, "p50": %d, "p99": %d, "mean": %.1f, "max": %d}\n',
    summary.requests, summary.duration, good_total, bad_total, exhausted_total,
    e.connect + e.read + e.write + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean, latency.max))
end
