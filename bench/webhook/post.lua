-- wrk script for bench/webhook: POST one prepared body per request, never the same body twice.
-- Arguments (after --): the file of bodies (one JSON document a line), the number of wrk threads.
-- Each thread takes every n-th line, so no two threads send the same update.
local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  local nthreads = tonumber(args[2])
  bodies, idx, sent_all = {}, 0, false
  local i = 0
  for line in io.lines(args[1]) do
    if i % nthreads == tid then
      bodies[#bodies + 1] = line
    end
    i = i + 1
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["X-Telegram-Bot-Api-Secret-Token"] = args[3]
end

function request()
  idx = idx + 1
  if idx > #bodies then
    -- Out of bodies: the run was longer than the file allows (the bench makes plenty). Stop.
    sent_all = true
    wrk.thread:stop()
    idx = #bodies
  end
  return wrk.format(nil, nil, nil, bodies[idx])
end

function done(summary, latency, requests)
  local ran_out = false
  for _, t in ipairs(threads) do
    if t:get("sent_all") then ran_out = true end
  end
  io.write(string.format("WRK requests=%d seconds=%.3f p50=%d p90=%d p99=%d max=%d non2xx=%d errors=%d ran_out=%s\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    tostring(ran_out)))
end
