"""Loads `tlc obs ship --dry-run --format json` into an embedded ClickHouse (chdb) in the table
shapes the OpenTelemetry Collector's ClickHouse exporter creates, runs every `-- query: <name>`
SQL block of docs/ship.md as written there, and prints {name: rows} as JSON.

Each request body is decoded with the official protocol classes first (OTLP/JSON's hex ids made
protobuf JSON's base64), then flattened the way the exporter flattens: attribute values as strings,
times as DateTime64(9), the service name from the resource.
"""

import base64
import json
import re
import sys

from chdb import session
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2
from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

# The exporter's columns (internal/sqltemplates/*_table.sql), without its codecs, indexes and TTL.
DDL = [
    """CREATE TABLE otel_traces (
        Timestamp DateTime64(9),
        TraceId String,
        SpanId String,
        ParentSpanId String,
        TraceState String,
        SpanName LowCardinality(String),
        SpanKind LowCardinality(String),
        ServiceName LowCardinality(String),
        ResourceAttributes Map(LowCardinality(String), String),
        ScopeName String,
        ScopeVersion String,
        SpanAttributes Map(LowCardinality(String), String),
        Duration UInt64,
        StatusCode LowCardinality(String),
        StatusMessage String,
        Events Nested (Timestamp DateTime64(9), Name LowCardinality(String), Attributes Map(LowCardinality(String), String)),
        Links Nested (TraceId String, SpanId String, TraceState String, Attributes Map(LowCardinality(String), String))
    ) ENGINE = MergeTree PARTITION BY toDate(Timestamp) ORDER BY (ServiceName, SpanName, toDateTime(Timestamp), Timestamp)""",
    """CREATE TABLE otel_logs (
        Timestamp DateTime64(9),
        TimestampTime DateTime DEFAULT toDateTime(Timestamp),
        TraceId String,
        SpanId String,
        TraceFlags UInt8,
        SeverityText LowCardinality(String),
        SeverityNumber UInt8,
        ServiceName LowCardinality(String),
        Body String,
        ResourceSchemaUrl LowCardinality(String),
        ResourceAttributes Map(LowCardinality(String), String),
        ScopeSchemaUrl LowCardinality(String),
        ScopeName String,
        ScopeVersion LowCardinality(String),
        ScopeAttributes Map(LowCardinality(String), String),
        LogAttributes Map(LowCardinality(String), String)
    ) ENGINE = MergeTree PARTITION BY toDate(TimestampTime) ORDER BY (ServiceName, TimestampTime, Timestamp)""",
    """CREATE TABLE otel_metrics_histogram (
        ResourceAttributes Map(LowCardinality(String), String),
        ResourceSchemaUrl String,
        ScopeName String,
        ScopeVersion String,
        ScopeAttributes Map(LowCardinality(String), String),
        ScopeDroppedAttrCount UInt32,
        ScopeSchemaUrl String,
        ServiceName LowCardinality(String),
        MetricName String,
        MetricDescription String,
        MetricUnit String,
        Attributes Map(LowCardinality(String), String),
        StartTimeUnix DateTime64(9),
        TimeUnix DateTime64(9),
        Count UInt64,
        Sum Float64,
        BucketCounts Array(UInt64),
        ExplicitBounds Array(Float64),
        Flags UInt32,
        Min Float64,
        Max Float64,
        AggregationTemporality Int32
    ) ENGINE = MergeTree PARTITION BY toDate(TimeUnix) ORDER BY (ServiceName, MetricName, Attributes, toUnixTimestamp64Nano(TimeUnix))""",
]

REQUEST = {
    "traces": trace_service_pb2.ExportTraceServiceRequest,
    "logs": logs_service_pb2.ExportLogsServiceRequest,
    "metrics": metrics_service_pb2.ExportMetricsServiceRequest,
}
SPAN_KIND = {0: "Unspecified", 1: "Internal", 2: "Server", 3: "Client", 4: "Producer", 5: "Consumer"}
STATUS = {0: "Unset", 1: "Ok", 2: "Error"}


def hex_ids_to_base64(o):
    if isinstance(o, dict):
        return {
            k: (base64.b64encode(bytes.fromhex(v)).decode() if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str) else hex_ids_to_base64(v))
            for k, v in o.items()
        }
    if isinstance(o, list):
        return [hex_ids_to_base64(x) for x in o]
    return o


def as_string(v):
    """An AnyValue as the exporter stores it in a map (pcommon's AsString)."""
    kind = v.WhichOneof("value")
    if kind is None:
        return ""
    if kind == "string_value":
        return v.string_value
    if kind == "bool_value":
        return "true" if v.bool_value else "false"
    if kind == "int_value":
        return str(v.int_value)
    if kind == "double_value":
        return repr(v.double_value)
    return json_format.MessageToJson(v, indent=None)


def attrs(kvs):
    return {kv.key: as_string(kv.value) for kv in kvs}


def ts(nanos):
    return "%d.%09d" % (nanos // 1_000_000_000, nanos % 1_000_000_000)


def rows(dry_run):
    traces, logs, points = [], [], []
    for req in dry_run["requests"]:
        msg = REQUEST[req["signal"]]()
        json_format.ParseDict(hex_ids_to_base64(req["body"]), msg)
        if req["signal"] == "traces":
            for rs in msg.resource_spans:
                res = attrs(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        traces.append({
                            "Timestamp": ts(s.start_time_unix_nano),
                            "TraceId": s.trace_id.hex(),
                            "SpanId": s.span_id.hex(),
                            "ParentSpanId": s.parent_span_id.hex(),
                            "TraceState": s.trace_state,
                            "SpanName": s.name,
                            "SpanKind": SPAN_KIND.get(s.kind, "Unspecified"),
                            "ServiceName": res.get("service.name", ""),
                            "ResourceAttributes": res,
                            "ScopeName": ss.scope.name,
                            "ScopeVersion": ss.scope.version,
                            "SpanAttributes": attrs(s.attributes),
                            "Duration": s.end_time_unix_nano - s.start_time_unix_nano,
                            "StatusCode": STATUS.get(s.status.code, "Unset"),
                            "StatusMessage": s.status.message,
                        })
        elif req["signal"] == "logs":
            for rl in msg.resource_logs:
                res = attrs(rl.resource.attributes)
                for sl in rl.scope_logs:
                    for r in sl.log_records:
                        logs.append({
                            "Timestamp": ts(r.time_unix_nano or r.observed_time_unix_nano),
                            "TraceId": r.trace_id.hex(),
                            "SpanId": r.span_id.hex(),
                            "TraceFlags": r.flags & 0xFF,
                            "SeverityText": r.severity_text,
                            "SeverityNumber": r.severity_number,
                            "ServiceName": res.get("service.name", ""),
                            "Body": as_string(r.body),
                            "ResourceSchemaUrl": rl.schema_url,
                            "ResourceAttributes": res,
                            "ScopeSchemaUrl": sl.schema_url,
                            "ScopeName": sl.scope.name,
                            "ScopeVersion": sl.scope.version,
                            "ScopeAttributes": attrs(sl.scope.attributes),
                            "LogAttributes": attrs(r.attributes),
                        })
        else:
            for rm in msg.resource_metrics:
                res = attrs(rm.resource.attributes)
                for sm in rm.scope_metrics:
                    for m in sm.metrics:
                        if m.WhichOneof("data") != "histogram":
                            continue
                        for p in m.histogram.data_points:
                            points.append({
                                "ResourceAttributes": res,
                                "ResourceSchemaUrl": rm.schema_url,
                                "ScopeName": sm.scope.name,
                                "ScopeVersion": sm.scope.version,
                                "ScopeAttributes": attrs(sm.scope.attributes),
                                "ScopeDroppedAttrCount": sm.scope.dropped_attributes_count,
                                "ScopeSchemaUrl": sm.schema_url,
                                "ServiceName": res.get("service.name", ""),
                                "MetricName": m.name,
                                "MetricDescription": m.description,
                                "MetricUnit": m.unit,
                                "Attributes": attrs(p.attributes),
                                "StartTimeUnix": ts(p.start_time_unix_nano),
                                "TimeUnix": ts(p.time_unix_nano),
                                "Count": p.count,
                                "Sum": p.sum,
                                "BucketCounts": list(p.bucket_counts),
                                "ExplicitBounds": list(p.explicit_bounds),
                                "Flags": p.flags,
                                "Min": p.min,
                                "Max": p.max,
                                "AggregationTemporality": m.histogram.aggregation_temporality,
                            })
    return traces, logs, points


def queries(markdown):
    """Every ```sql block of the doc whose first line is `-- query: <name>`, as written."""
    out = {}
    for block in re.findall(r"```sql\n(.*?)```", markdown, re.S):
        first = block.splitlines()[0].strip()
        if first.startswith("-- query:"):
            out[first.split(":", 1)[1].strip()] = block
    return out


def main():
    dry_run_path, docs_path = sys.argv[1], sys.argv[2]
    with open(dry_run_path) as f:
        dry_run = json.load(f)
    with open(docs_path) as f:
        named = queries(f.read())
    sess = session.Session()
    sess.query("CREATE DATABASE IF NOT EXISTS otel")
    sess.query("USE otel")
    for ddl in DDL:
        sess.query(ddl)
    for table, data in zip(["otel_traces", "otel_logs", "otel_metrics_histogram"], rows(dry_run)):
        if data:
            cols = ", ".join(data[0].keys())
            body = "\n".join(json.dumps(r) for r in data)
            sess.query(f"INSERT INTO {table} ({cols}) FORMAT JSONEachRow\n{body}\n")
    results = {"loaded": {}}
    for table in ["otel_traces", "otel_logs", "otel_metrics_histogram"]:
        results["loaded"][table] = int(str(sess.query(f"SELECT count() FROM {table}", "CSV")).strip())
    for name, sql in named.items():
        res = sess.query(sql, "JSON")
        results[name] = json.loads(str(res))["data"]
    print(json.dumps(results))


if __name__ == "__main__":
    main()
