// sendInScope (ui/triggers.py): one batch of trigger values, one scope. Imported by drag.js; inlined into the
// components whose JavaScript is sent with their element (ui.triggers.ONE_SCOPE_JS).
export function sendInScope(scope, fn) {
  const B = window.__attentionLabBatch || (window.__attentionLabBatch = { open: false, scope: null, deferred: 0 });
  if (B.open && B.scope !== scope) {  // another scope's batch is gathering: after its flush
    B.deferred += 1;
    setTimeout(() => sendInScope(scope, fn), 0);
    return;
  }
  fn();  // (Streamlit schedules its flush here when this is the batch's first update)
  if (!B.open) {
    B.open = true;
    B.scope = scope;
    setTimeout(() => { B.open = false; B.scope = null; }, 0);  // after the flush scheduled just above
  }
}
