// What chat/static/chat/attachments.js (the attach button, drag and drop) uses of the chat:
// window.LA.chat, and a "la:conversation" event each time another conversation opens.
import { startConversation } from "./conversations.js";
import { renderAttachment } from "./messages.js";
import { announce, clearAlert, els, showAlert, state } from "./page.js";

export function conversationChanged(id) {
  document.dispatchEvent(new CustomEvent("la:conversation", { detail: { id } }));
}

export function wireFiles() {
  window.LA.chat = {
    conversationId: () => (state.current ? state.current.id : null),
    // A file sent from the home page makes its conversation, as a first message does.
    ensureConversation: async () => state.current || startConversation(),
    renderAttachment,
    showAlert,
    clearAlert,
    announce,
    refer(name) { // "@name " into the message box, so the message refers to the file
      const reference = `@${name} `;
      if (!els.input.value.includes(reference)) els.input.value = `${els.input.value.trimEnd()} ${reference}`.trimStart();
      els.input.dispatchEvent(new Event("input"));
    },
  };
}
