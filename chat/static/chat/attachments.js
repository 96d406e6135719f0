// Files people send into a conversation: the paperclip button and drag and drop on the chat.
// Each file goes to POST /api/v1/conversations/{id}/files/ and comes back as a document,
// shown collapsed like a pasted one, above the message box, with "@name" put in the box
// so the message refers to it. The conversation's files are listed again when it opens.
// Uses only window.LA (common.js) and what app/files.js gives it (window.LA.chat).
"use strict";

(() => {
  const LA = window.LA;
  const chat = LA && LA.chat;
  const input = document.getElementById("file-input");
  const attach = document.getElementById("attach-button");
  const list = document.getElementById("sent-files");
  const composer = document.getElementById("composer");
  const dropZone = document.getElementById("conversation-view") || composer;
  if (!chat || !input || !attach || !list || !composer) return;
  const { gettext, interpolate } = window;
  let shownFor = null; // the conversation whose files the list shows

  function show(documents, conversationId) {
    if (conversationId !== shownFor) return; // another conversation opened meanwhile
    for (const doc of documents) {
      if (list.querySelector(`[data-document-id="${doc.id}"]`)) continue; // listed by both the upload and the opening
      const item = chat.renderAttachment(doc);
      item.dataset.documentId = String(doc.id);
      list.append(item);
    }
    list.hidden = list.children.length === 0;
  }

  async function listFiles(conversationId) {
    shownFor = conversationId;
    list.replaceChildren();
    list.hidden = true;
    if (conversationId === null) return;
    try {
      const documents = await LA.api(`conversations/${conversationId}/documents/`);
      show(LA.resultsOf(documents).filter((doc) => doc.label === "user_file"), conversationId);
    } catch (err) {
      // The list is a convenience: the files are still in the conversation.
    }
  }

  async function send(files) {
    if (!files.length) return;
    chat.clearAlert();
    let conversation;
    try {
      conversation = await chat.ensureConversation();
    } catch (err) {
      chat.showAlert(err.message);
      return;
    }
    if (!conversation) return;
    attach.disabled = true;
    attach.classList.add("attach-busy");
    try {
      for (const file of files) {
        const form = new FormData();
        form.append("file", file, file.name);
        try {
          const sent = await LA.api(`conversations/${conversation.id}/files/`, { method: "POST", body: form });
          shownFor = conversation.id;
          show(sent.documents, conversation.id);
          for (const doc of sent.documents) chat.refer(doc.file_name);
          chat.announce(interpolate(gettext("%(name)s is attached."), { name: file.name }, true));
        } catch (err) {
          chat.showAlert(`${file.name}: ${err.message}`);
        }
      }
    } finally {
      attach.disabled = false;
      attach.classList.remove("attach-busy");
      input.value = ""; // the same file may be sent again
    }
  }

  attach.addEventListener("click", () => input.click());
  input.addEventListener("change", () => send(Array.from(input.files || [])));

  // Drag and drop: only drags that carry files light the box up.
  const carriesFiles = (event) => Array.from((event.dataTransfer && event.dataTransfer.types) || []).includes("Files");
  dropZone.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    composer.classList.add("dropping");
  });
  dropZone.addEventListener("dragleave", (event) => {
    if (!dropZone.contains(event.relatedTarget)) composer.classList.remove("dropping");
  });
  dropZone.addEventListener("drop", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    composer.classList.remove("dropping");
    send(Array.from(event.dataTransfer.files || []));
  });

  document.addEventListener("la:conversation", (event) => {
    if (event.detail.id !== shownFor) listFiles(event.detail.id);
  });
  if (chat.conversationId() !== null) listFiles(chat.conversationId());
})();
