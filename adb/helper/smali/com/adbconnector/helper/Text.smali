.class public Lcom/adbconnector/helper/Text;
.super Ljava/lang/Object;
.source "Text.smali"

# Exact text in any script, with no IME: the field's accessibility node
# takes ACTION_SET_TEXT; a field that refuses it gets the text through the
# clipboard and ACTION_PASTE (the user's clip is put back after), as
# mobile-next/mobilecli does. The text is never logged.

# TEXT: str text, u8 clear, u8 is_password_ok (ignored), i32 x, i32 y
# (-1,-1: the focused node). Answer: str method, u8 read_back_ok, str
# read_back. read_back_ok: the field's text after the edit was read and
# is what was asked (equal to it when set, containing it when pasted);
# a password field reads back nothing and 0.
.method static type(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    .registers 16
    invoke-static {p0}, Lcom/adbconnector/helper/Wire;->readStr(Ljava/io/DataInputStream;)Ljava/lang/String;
    move-result-object v0
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readUnsignedByte()I
    move-result v1
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readUnsignedByte()I
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v2
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v3
    invoke-static {p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    invoke-static {}, Lcom/adbconnector/helper/Ui;->need()Landroid/app/UiAutomation;
    move-result-object v4
    invoke-static {}, Lcom/adbconnector/helper/Ui;->clearCache()V
    const/4 v5, -1
    if-ne v2, v5, :target
    if-ne v3, v5, :target
    # FOCUS_INPUT: the field that has the input focus, in any window.
    const/4 v5, 1
    invoke-virtual {v4, v5}, Landroid/app/UiAutomation;->findFocus(I)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v4
    goto :found
    :target
    invoke-static {v2, v3}, Lcom/adbconnector/helper/Ui;->fieldAt(II)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v4
    if-eqz v4, :found
    const/4 v5, 1
    invoke-virtual {v4, v5}, Landroid/view/accessibility/AccessibilityNodeInfo;->performAction(I)Z
    :found
    if-nez v4, :have
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "not_found"
    const-string v2, "no focused text field"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
    :have
    # v6 current text, v7 empty, v8 password
    invoke-virtual {v4}, Landroid/view/accessibility/AccessibilityNodeInfo;->getText()Ljava/lang/CharSequence;
    move-result-object v6
    invoke-static {v6}, Lcom/adbconnector/helper/Dumper;->empty(Ljava/lang/CharSequence;)Z
    move-result v7
    if-nez v7, :empty_known
    # From Android 8 an empty field's text is its hint, flagged as such.
    invoke-static {v4}, Lcom/adbconnector/helper/Text;->showingHint(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    move-result v7
    :empty_known
    invoke-virtual {v4}, Landroid/view/accessibility/AccessibilityNodeInfo;->isPassword()Z
    move-result v8
    # v9 = what the field should hold: the text when clearing or empty,
    # else what it has followed by the text (not for a password field,
    # whose text reads as bullets: that one is pasted at the cursor).
    move-object v9, v0
    if-nez v1, :set
    if-nez v7, :set
    if-nez v8, :paste
    new-instance v9, Ljava/lang/StringBuilder;
    invoke-direct {v9}, Ljava/lang/StringBuilder;-><init>()V
    invoke-virtual {v9, v6}, Ljava/lang/StringBuilder;->append(Ljava/lang/CharSequence;)Ljava/lang/StringBuilder;
    invoke-virtual {v9, v0}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v9}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v9
    :set
    const-string v10, "set_text"
    new-instance v11, Landroid/os/Bundle;
    invoke-direct {v11}, Landroid/os/Bundle;-><init>()V
    const-string v12, "ACTION_ARGUMENT_SET_TEXT_CHARSEQUENCE"
    invoke-virtual {v11, v12, v9}, Landroid/os/Bundle;->putCharSequence(Ljava/lang/String;Ljava/lang/CharSequence;)V
    const/high16 v12, 0x200000
    invoke-virtual {v4, v12, v11}, Landroid/view/accessibility/AccessibilityNodeInfo;->performAction(ILandroid/os/Bundle;)Z
    move-result v12
    if-nez v12, :read_back
    :paste
    const-string v10, "paste"
    # Replacing: select what is there so the paste replaces it.
    if-eqz v1, :no_select
    if-nez v7, :no_select
    new-instance v11, Landroid/os/Bundle;
    invoke-direct {v11}, Landroid/os/Bundle;-><init>()V
    const-string v12, "ACTION_ARGUMENT_SELECTION_START_INT"
    const/4 v13, 0
    invoke-virtual {v11, v12, v13}, Landroid/os/Bundle;->putInt(Ljava/lang/String;I)V
    const-string v12, "ACTION_ARGUMENT_SELECTION_END_INT"
    invoke-interface {v6}, Ljava/lang/CharSequence;->length()I
    move-result v13
    invoke-virtual {v11, v12, v13}, Landroid/os/Bundle;->putInt(Ljava/lang/String;I)V
    const/high16 v12, 0x20000
    invoke-virtual {v4, v12, v11}, Landroid/view/accessibility/AccessibilityNodeInfo;->performAction(ILandroid/os/Bundle;)Z
    :no_select
    invoke-static {v4, v0}, Lcom/adbconnector/helper/Text;->paste(Landroid/view/accessibility/AccessibilityNodeInfo;Ljava/lang/String;)Z
    move-result v12
    if-nez v12, :read_back
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "refused"
    const-string v2, "the field refused set text and paste"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0

    :read_back
    const-string v13, ""
    const/4 v14, 0
    if-nez v8, :write
    invoke-virtual {v4}, Landroid/view/accessibility/AccessibilityNodeInfo;->refresh()Z
    invoke-virtual {v4}, Landroid/view/accessibility/AccessibilityNodeInfo;->getText()Ljava/lang/CharSequence;
    move-result-object v6
    if-eqz v6, :write
    invoke-interface {v6}, Ljava/lang/CharSequence;->toString()Ljava/lang/String;
    move-result-object v13
    const-string v6, "paste"
    if-eq v10, v6, :pasted
    invoke-virtual {v13, v9}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v14
    goto :write
    :pasted
    invoke-virtual {v13, v0}, Ljava/lang/String;->contains(Ljava/lang/CharSequence;)Z
    move-result v14
    :write
    invoke-static {p1, v10}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    invoke-virtual {p1, v14}, Ljava/io/DataOutputStream;->writeByte(I)V
    invoke-static {p1, v13}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void
.end method

.method static showingHint(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    .registers 3
    sget v0, Landroid/os/Build$VERSION;->SDK_INT:I
    const/16 v1, 26
    if-lt v0, v1, :no
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isShowingHintText()Z
    move-result v0
    return v0
    :no
    const/4 v0, 0
    return v0
.end method

# paste puts s on the clipboard, pastes it into n, and puts the user's
# clip back; false when there is no clipboard or the field refuses.
.method static paste(Landroid/view/accessibility/AccessibilityNodeInfo;Ljava/lang/String;)Z
    .registers 6
    sget-object v0, Lcom/adbconnector/helper/Clip;->set:Ljava/lang/reflect/Method;
    if-nez v0, :have
    const/4 v0, 0
    return v0
    :have
    const/4 v0, 0
    :try_start
    invoke-static {}, Lcom/adbconnector/helper/Clip;->text()Ljava/lang/String;
    move-result-object v0
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :no_old
    :no_old
    invoke-static {p1}, Lcom/adbconnector/helper/Clip;->setText(Ljava/lang/String;)V
    const v1, 0x8000
    invoke-virtual {p0, v1}, Landroid/view/accessibility/AccessibilityNodeInfo;->performAction(I)Z
    move-result v1
    if-eqz v0, :done
    :try2_start
    invoke-static {v0}, Lcom/adbconnector/helper/Clip;->setText(Ljava/lang/String;)V
    :try2_end
    .catch Ljava/lang/Throwable; {:try2_start .. :try2_end} :done
    :done
    return v1
.end method
