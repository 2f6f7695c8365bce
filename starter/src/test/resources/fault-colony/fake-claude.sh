#!/bin/sh
# A shell stand-in for the claude CLI (stream-json mode) for the fault tests: asks permission to
# git push, waits for the answer on stdin, then reports success.
here=$(cd "$(dirname "$0")" && pwd)
log="$here/control/epsilon"
mkdir -p "$log"
read -r first
echo "$*" >> "$log/args.log"
echo '{"type":"system","subtype":"init","session_id":"sess-fault"}'
echo '{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"git push origin main"}}}'
while read -r line; do
  case "$line" in
    *control_response*) echo "$line" >> "$log/decisions.log"; break ;;
  esac
done
echo '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"total_cost_usd":0.1,"usage":{"input_tokens":10,"output_tokens":5},"result":"pushed the fix","session_id":"sess-fault"}'
while read -r line; do :; done
