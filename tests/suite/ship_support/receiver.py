"""A test OTLP/HTTP receiver for tests/ship.rs.

Decodes every request with the official OpenTelemetry protocol classes (`opentelemetry-proto`
from PyPI): protobuf bodies with `FromString`, JSON bodies with protobuf's own JSON parser, which
rejects unknown fields (OTLP/JSON's hex trace and span ids are turned into protobuf JSON's base64
first, as the collector does). A body that does not decode is answered 400.

Each request is appended to the log (JSON lines) with what was done with it. How to answer is
read from the behaviour file on every request, so a test can change it between runs:

  {"fail": [[503, "1"]],   answers to give first, in order: [status, Retry-After or null]
   "max_body": 3000,       413 for a larger body
   "delay_s": 2.5,         wait before answering (the request is logged as taken first)
   "reject": 1}            a partial success rejecting this many records per request

The receiver stops by itself after --lifetime seconds.
"""

import argparse
import base64
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

SIGNALS = {
    "/v1/traces": ("traces", trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse),
    "/v1/logs": ("logs", logs_service_pb2.ExportLogsServiceRequest, logs_service_pb2.ExportLogsServiceResponse),
    "/v1/metrics": ("metrics", metrics_service_pb2.ExportMetricsServiceRequest, metrics_service_pb2.ExportMetricsServiceResponse),
}
HEX_IDS = ("traceId", "spanId", "parentSpanId")
LOCK = threading.Lock()


def hex_ids_to_base64(o):
    if isinstance(o, dict):
        return {
            k: (base64.b64encode(bytes.fromhex(v)).decode() if k in HEX_IDS and isinstance(v, str) else hex_ids_to_base64(v))
            for k, v in o.items()
        }
    if isinstance(o, list):
        return [hex_ids_to_base64(x) for x in o]
    return o


def base64_ids_to_hex(o):
    if isinstance(o, dict):
        return {k: (base64.b64decode(v).hex() if k in HEX_IDS and isinstance(v, str) else base64_ids_to_hex(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [base64_ids_to_hex(x) for x in o]
    return o


def records(signal, msg):
    if signal == "traces":
        return sum(len(ss.spans) for rs in msg.resource_spans for ss in rs.scope_spans)
    if signal == "logs":
        return sum(len(sl.log_records) for rl in msg.resource_logs for sl in rl.scope_logs)
    return sum(
        len(m.histogram.data_points) for rm in msg.resource_metrics for sm in rm.scope_metrics for m in sm.metrics
    )


class State:
    def __init__(self, behaviour_path, log_path):
        self.behaviour_path = behaviour_path
        self.log_path = log_path
        self.failed = 0

    def behaviour(self):
        try:
            with open(self.behaviour_path) as f:
                return json.load(f)
        except FileNotFoundError:
            return {}

    def log(self, entry):
        with LOCK:
            with open(self.log_path, "a") as f:
                f.write(json.dumps(entry) + "\n")


def handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, body=b"", content_type="application/x-protobuf", retry_after=None):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if retry_after is not None:
                self.send_header("Retry-After", retry_after)
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self):
            arrived = time.time()
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            content_type = self.headers.get("Content-Type", "")
            entry = {
                "t": arrived,
                "path": self.path,
                "content_type": content_type,
                "bytes": len(body),
                "headers": {k.lower(): v for k, v in self.headers.items()},
            }
            if self.path not in SIGNALS:
                entry["status"] = 404
                state.log(entry)
                return self.answer(404)
            signal, request_cls, response_cls = SIGNALS[self.path]
            entry["signal"] = signal
            b = state.behaviour()
            with LOCK:
                fails = b.get("fail", [])
                scripted = fails[state.failed] if state.failed < len(fails) else None
                if scripted:
                    state.failed += 1
            if scripted:
                entry["status"] = scripted[0]
                state.log(entry)
                return self.answer(scripted[0], retry_after=scripted[1])
            if b.get("max_body") and len(body) > b["max_body"]:
                entry["status"] = 413
                state.log(entry)
                return self.answer(413)
            msg = request_cls()
            try:
                if content_type.startswith("application/json"):
                    json_format.ParseDict(hex_ids_to_base64(json.loads(body)), msg)
                else:
                    msg.ParseFromString(body)
                    if msg.SerializeToString() != body:
                        raise ValueError("the body does not round-trip through the official schema")
            except Exception as e:  # noqa: BLE001 - any decode failure is the client's fault
                entry["status"] = 400
                entry["error"] = str(e)
                state.log(entry)
                return self.answer(400, str(e).encode(), "text/plain")
            entry["status"] = 200
            entry["records"] = records(signal, msg)
            entry["body"] = base64_ids_to_hex(json_format.MessageToDict(msg))
            # Logged as taken before any delay: a collector that is slow to answer has the data.
            state.log(entry)
            if b.get("delay_s"):
                time.sleep(b["delay_s"])
            response = response_cls()
            reject = b.get("reject", 0)
            if reject:
                ps = response.partial_success
                if signal == "traces":
                    ps.rejected_spans = reject
                elif signal == "logs":
                    ps.rejected_log_records = reject
                else:
                    ps.rejected_data_points = reject
                ps.error_message = "test receiver rejects %d" % reject
            if content_type.startswith("application/json"):
                return self.answer(200, json_format.MessageToJson(response).encode(), "application/json")
            return self.answer(200, response.SerializeToString())

    return Handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--behaviour", required=True)
    p.add_argument("--lifetime", type=float, default=180.0)
    a = p.parse_args()
    state = State(a.behaviour, a.log)
    server = ThreadingHTTPServer(("127.0.0.1", a.port), handler(state))
    server.daemon_threads = True
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, a.port_file)
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
