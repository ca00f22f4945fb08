"""ClickHouse in process (chDB) for scripts/bench/peer.mjs: runs the SQL it is sent and times it here.

Usage: clickhouse.py <data directory>. Reads one JSON request a line on stdin,
{"sql": "...", "format": "JSON", "result": true}, and answers one JSON line on stdout:
{"ms": wall milliseconds of the query in this process (parse, plan, run, and the answer
formatted in `format`), "elapsed_ms": ClickHouse's own elapsed time, "result": the formatted
answer (only when asked; format JSON carries what the query read in its "statistics")}, or {"error": "..."}. No HTTP, no client
protocol: the time is what a caller in this process waits for its answer.
"""

import json
import sys
import time

from chdb import session


def main() -> None:
    db = session.Session(sys.argv[1])
    out = sys.stdout
    for line in sys.stdin:
        request = json.loads(line)
        try:
            started = time.perf_counter()
            res = db.query(request["sql"], request.get("format", "JSON"))
            ms = (time.perf_counter() - started) * 1000
            answer = {"ms": ms, "elapsed_ms": res.elapsed() * 1000}
            if request.get("result"):
                answer["result"] = res.bytes().decode("utf-8")
        except Exception as err:  # the caller reports it with the SQL it sent
            answer = {"error": str(err)}
        out.write(json.dumps(answer) + "\n")
        out.flush()
    db.close()


if __name__ == "__main__":
    main()
