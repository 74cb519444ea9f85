// The transcript as a virtualised list: only the rows in view (and a few around them) are in the DOM,
// each keyed by its entry's stable id so measured heights survive updates. Rows are memoised on the
// entry object: a snapshot shares every entry that did not change, so only the changed row renders.
// The list follows the bottom while the reader is there.
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import type { Transcript, TranscriptEntry } from "sandbox-agent-rx";
import { EntryView } from "./EntryView.js";
import { cancelledTools } from "./words.js";

const Row = memo(EntryView);

export function TranscriptList({ transcript, cwd }: { transcript: Transcript; cwd?: string | undefined }) {
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const cancelled = useMemo(() => cancelledTools(transcript), [transcript]);
  const virtualizer = useVirtualizer({
    count: transcript.size,
    getScrollElement: () => scroller.current,
    estimateSize: () => 64,
    overscan: 6,
    getItemKey: (index) => transcript.at(index)?.id ?? index,
  });
  useEffect(() => {
    if (following.current && transcript.size > 0) virtualizer.scrollToIndex(transcript.size - 1, { align: "end" });
  }, [transcript, virtualizer]);
  const onScroll = () => {
    const element = scroller.current;
    if (element) following.current = element.scrollHeight - element.scrollTop - element.clientHeight < 80;
  };

  return (
    <div className="scroller" id="transcript" ref={scroller} onScroll={onScroll} data-size={transcript.size}
      role="log" aria-live="polite">
      {transcript.size === 0 ? (
        <div className="transcript-empty">
          <b>No messages yet</b>
          Send a prompt below: the plan, the agent's thinking, its tool calls and its answer stream in here.
        </div>
      ) : null}
      <div className="rows" style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
        {virtualizer.getVirtualItems().map((item) => {
          const entry = transcript.at(item.index) as TranscriptEntry;
          return (
            <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="row"
              style={{ position: "absolute", top: 0, left: 0, width: "100%", transform: `translateY(${item.start}px)` }}>
              <Row entry={entry} cwd={cwd} cancelled={cancelled.has(entry.id)} />
            </div>
          );
        })}
      </div>
    </div>
  );
}
