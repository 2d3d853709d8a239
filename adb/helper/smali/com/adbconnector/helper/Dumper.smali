.class public Lcom/adbconnector/helper/Dumper;
.super Ljava/lang/Object;
.source "Dumper.smali"

# Writes the XML `uiautomator dump` writes, byte for byte: AOSP
# cmds/uiautomator AccessibilityNodeInfoDumper (dumpNodeRec: attribute
# order, the NAF rule, invisible children skipped, bounds clipped to the
# display by AccessibilityNodeInfoHelper.getVisibleBoundsInScreen, and from
# Android 11 drawing-order and hint) through Android's KXmlSerializer
# (libcore: the declaration, " />" for an empty element, its escapes), so
# the host parses helper trees and stock dumps with one parser.

.field static sb:Ljava/lang/StringBuilder;
.field static count:I
.field static w:I
.field static h:I
.field static extra:Z

.method static begin(III)V
    .registers 6
    new-instance v0, Ljava/lang/StringBuilder;
    const/high16 v1, 0x10000
    invoke-direct {v0, v1}, Ljava/lang/StringBuilder;-><init>(I)V
    sput-object v0, Lcom/adbconnector/helper/Dumper;->sb:Ljava/lang/StringBuilder;
    const/4 v1, 0
    sput v1, Lcom/adbconnector/helper/Dumper;->count:I
    sput p1, Lcom/adbconnector/helper/Dumper;->w:I
    sput p2, Lcom/adbconnector/helper/Dumper;->h:I
    sget v1, Landroid/os/Build$VERSION;->SDK_INT:I
    const/16 v2, 30
    if-lt v1, v2, :old
    const/4 v1, 1
    goto :set
    :old
    const/4 v1, 0
    :set
    sput-boolean v1, Lcom/adbconnector/helper/Dumper;->extra:Z
    const-string v1, "<?xml version=\'1.0\' encoding=\'UTF-8\' standalone=\'yes\' ?><hierarchy rotation=\""
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0, p0}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const-string v1, "\">"
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    return-void
.end method

.method static end()Ljava/lang/String;
    .registers 3
    sget-object v0, Lcom/adbconnector/helper/Dumper;->sb:Ljava/lang/StringBuilder;
    const-string v1, "</hierarchy>"
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v0
    const/4 v1, 0
    sput-object v1, Lcom/adbconnector/helper/Dumper;->sb:Ljava/lang/StringBuilder;
    return-object v0
.end method

# str appends ` name="value"`: prefix is ` name="`, the value stripped and
# escaped.
.method static str(Ljava/lang/String;Ljava/lang/CharSequence;)V
    .registers 4
    sget-object v0, Lcom/adbconnector/helper/Dumper;->sb:Ljava/lang/StringBuilder;
    invoke-virtual {v0, p0}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-static {p1}, Lcom/adbconnector/helper/Dumper;->esc(Ljava/lang/CharSequence;)V
    const/16 v1, 0x22
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    return-void
.end method

.method static flag(Ljava/lang/String;Z)V
    .registers 4
    sget-object v0, Lcom/adbconnector/helper/Dumper;->sb:Ljava/lang/StringBuilder;
    invoke-virtual {v0, p0}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0, p1}, Ljava/lang/StringBuilder;->append(Z)Ljava/lang/StringBuilder;
    const/16 v1, 0x22
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    return-void
.end method

# esc appends cs as AccessibilityNodeInfoDumper.safeCharSeqToString and
# KXmlSerializer.writeEscaped (attribute, quote '"') leave it: characters
# stripInvalidXMLChars lists become '.'; tab, newline and carriage return
# become numeric references; & < > " their entities; a surrogate pair its
# code point as a numeric reference. KXml throws on what is left (NUL, a
# lone surrogate, U+FFFE/FFFF) and fails the whole dump; we write '.'.
.method static esc(Ljava/lang/CharSequence;)V
    .registers 10
    if-nez p0, :go
    return-void
    :go
    sget-object v0, Lcom/adbconnector/helper/Dumper;->sb:Ljava/lang/StringBuilder;
    invoke-interface {p0}, Ljava/lang/CharSequence;->length()I
    move-result v1
    const/4 v2, 0
    :loop
    if-ge v2, v1, :end
    invoke-interface {p0, v2}, Ljava/lang/CharSequence;->charAt(I)C
    move-result v3
    # stripInvalidXMLChars ranges
    const/4 v4, 0x1
    const/16 v5, 0x8
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :dot
    const/16 v4, 0xb
    const/16 v5, 0xc
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :dot
    const/16 v4, 0xe
    const/16 v5, 0x1f
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :dot
    const/16 v4, 0x7f
    const/16 v5, 0x84
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :dot
    const/16 v4, 0x86
    const/16 v5, 0x9f
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :dot
    const v4, 0xfdd0
    const v5, 0xfddf
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :dot
    # KXmlSerializer.writeEscaped
    const/16 v4, 0x9
    if-eq v3, v4, :numeric
    const/16 v4, 0xa
    if-eq v3, v4, :numeric
    const/16 v4, 0xd
    if-eq v3, v4, :numeric
    const/16 v4, 0x26
    if-ne v3, v4, :not_amp
    const-string v7, "&amp;"
    goto :append_str
    :not_amp
    const/16 v4, 0x3e
    if-ne v3, v4, :not_gt
    const-string v7, "&gt;"
    goto :append_str
    :not_gt
    const/16 v4, 0x3c
    if-ne v3, v4, :not_lt
    const-string v7, "&lt;"
    goto :append_str
    :not_lt
    const/16 v4, 0x22
    if-ne v3, v4, :not_quot
    const-string v7, "&quot;"
    goto :append_str
    :not_quot
    const/16 v4, 0x20
    const v5, 0xd7ff
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :plain
    const v4, 0xe000
    const v5, 0xfffd
    invoke-static {v3, v4, v5}, Lcom/adbconnector/helper/Dumper;->in(III)Z
    move-result v6
    if-nez v6, :plain
    invoke-static {v3}, Ljava/lang/Character;->isHighSurrogate(C)Z
    move-result v6
    if-eqz v6, :dot
    add-int/lit8 v4, v2, 1
    if-lt v4, v1, :pair
    goto :dot
    :pair
    invoke-interface {p0, v4}, Ljava/lang/CharSequence;->charAt(I)C
    move-result v5
    invoke-static {v5}, Ljava/lang/Character;->isLowSurrogate(C)Z
    move-result v6
    if-eqz v6, :dot
    invoke-static {v3, v5}, Ljava/lang/Character;->toCodePoint(CC)I
    move-result v3
    move v2, v4
    :numeric
    const-string v7, "&#"
    invoke-virtual {v0, v7}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0, v3}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const/16 v4, 0x3b
    invoke-virtual {v0, v4}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    goto :next
    :append_str
    invoke-virtual {v0, v7}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    goto :next
    :dot
    const/16 v4, 0x2e
    invoke-virtual {v0, v4}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    goto :next
    :plain
    invoke-virtual {v0, v3}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    :next
    add-int/lit8 v2, v2, 1
    goto :loop
    :end
    return-void
.end method

.method static in(III)Z
    .registers 4
    if-lt p0, p1, :no
    if-gt p0, p2, :no
    const/4 v0, 1
    return v0
    :no
    const/4 v0, 0
    return v0
.end method

.method static empty(Ljava/lang/CharSequence;)Z
    .registers 3
    if-eqz p0, :yes
    invoke-interface {p0}, Ljava/lang/CharSequence;->length()I
    move-result v0
    if-eqz v0, :yes
    const/4 v0, 0
    return v0
    :yes
    const/4 v0, 1
    return v0
.end method

# nafExcluded: classes whose name ends with GridView, GridLayout, ListView
# or TableLayout's are never NAF (NAF_EXCLUDED_CLASSES).
.method static nafExcluded(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    .registers 4
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getClassName()Ljava/lang/CharSequence;
    move-result-object v0
    if-nez v0, :have
    const/4 v0, 0
    return v0
    :have
    invoke-interface {v0}, Ljava/lang/CharSequence;->toString()Ljava/lang/String;
    move-result-object v0
    const-string v1, "android.widget.GridView"
    invoke-virtual {v0, v1}, Ljava/lang/String;->endsWith(Ljava/lang/String;)Z
    move-result v2
    if-nez v2, :yes
    const-string v1, "android.widget.GridLayout"
    invoke-virtual {v0, v1}, Ljava/lang/String;->endsWith(Ljava/lang/String;)Z
    move-result v2
    if-nez v2, :yes
    const-string v1, "android.widget.ListView"
    invoke-virtual {v0, v1}, Ljava/lang/String;->endsWith(Ljava/lang/String;)Z
    move-result v2
    if-nez v2, :yes
    const-string v1, "android.widget.TableLayout"
    invoke-virtual {v0, v1}, Ljava/lang/String;->endsWith(Ljava/lang/String;)Z
    move-result v2
    :yes
    return v2
.end method

# nafCheck is true when the node is fine: not a clickable, enabled node
# without text or description, or one whose descendants carry some.
.method static nafCheck(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    .registers 3
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isClickable()Z
    move-result v0
    if-eqz v0, :fine
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isEnabled()Z
    move-result v0
    if-eqz v0, :fine
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getContentDescription()Ljava/lang/CharSequence;
    move-result-object v0
    invoke-static {v0}, Lcom/adbconnector/helper/Dumper;->empty(Ljava/lang/CharSequence;)Z
    move-result v0
    if-eqz v0, :fine
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getText()Ljava/lang/CharSequence;
    move-result-object v0
    invoke-static {v0}, Lcom/adbconnector/helper/Dumper;->empty(Ljava/lang/CharSequence;)Z
    move-result v0
    if-eqz v0, :fine
    invoke-static {p0}, Lcom/adbconnector/helper/Dumper;->childNafCheck(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    move-result v0
    return v0
    :fine
    const/4 v0, 1
    return v0
.end method

.method static childNafCheck(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    .registers 5
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getChildCount()I
    move-result v0
    const/4 v1, 0
    :loop
    if-ge v1, v0, :none
    invoke-virtual {p0, v1}, Landroid/view/accessibility/AccessibilityNodeInfo;->getChild(I)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v2
    add-int/lit8 v1, v1, 1
    if-eqz v2, :loop
    invoke-virtual {v2}, Landroid/view/accessibility/AccessibilityNodeInfo;->getContentDescription()Ljava/lang/CharSequence;
    move-result-object v3
    invoke-static {v3}, Lcom/adbconnector/helper/Dumper;->empty(Ljava/lang/CharSequence;)Z
    move-result v3
    if-eqz v3, :yes
    invoke-virtual {v2}, Landroid/view/accessibility/AccessibilityNodeInfo;->getText()Ljava/lang/CharSequence;
    move-result-object v3
    invoke-static {v3}, Lcom/adbconnector/helper/Dumper;->empty(Ljava/lang/CharSequence;)Z
    move-result v3
    if-eqz v3, :yes
    invoke-static {v2}, Lcom/adbconnector/helper/Dumper;->childNafCheck(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    move-result v3
    if-nez v3, :yes
    goto :loop
    :none
    const/4 v0, 0
    return v0
    :yes
    const/4 v0, 1
    return v0
.end method

# node writes n (at index among its parent's children) and its visible
# subtree.
.method static node(Landroid/view/accessibility/AccessibilityNodeInfo;I)V
    .registers 10
    sget v0, Lcom/adbconnector/helper/Dumper;->count:I
    add-int/lit8 v0, v0, 1
    sput v0, Lcom/adbconnector/helper/Dumper;->count:I
    sget-object v0, Lcom/adbconnector/helper/Dumper;->sb:Ljava/lang/StringBuilder;
    const-string v1, "<node"
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-static {p0}, Lcom/adbconnector/helper/Dumper;->nafExcluded(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    move-result v1
    if-nez v1, :naf_done
    invoke-static {p0}, Lcom/adbconnector/helper/Dumper;->nafCheck(Landroid/view/accessibility/AccessibilityNodeInfo;)Z
    move-result v1
    if-nez v1, :naf_done
    const-string v1, " NAF=\"true\""
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    :naf_done
    const-string v1, " index=\""
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0, p1}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const/16 v1, 0x22
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;

    const-string v1, " text=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getText()Ljava/lang/CharSequence;
    move-result-object v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->str(Ljava/lang/String;Ljava/lang/CharSequence;)V
    const-string v1, " resource-id=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getViewIdResourceName()Ljava/lang/String;
    move-result-object v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->str(Ljava/lang/String;Ljava/lang/CharSequence;)V
    const-string v1, " class=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getClassName()Ljava/lang/CharSequence;
    move-result-object v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->str(Ljava/lang/String;Ljava/lang/CharSequence;)V
    const-string v1, " package=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getPackageName()Ljava/lang/CharSequence;
    move-result-object v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->str(Ljava/lang/String;Ljava/lang/CharSequence;)V
    const-string v1, " content-desc=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getContentDescription()Ljava/lang/CharSequence;
    move-result-object v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->str(Ljava/lang/String;Ljava/lang/CharSequence;)V

    const-string v1, " checkable=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isCheckable()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " checked=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isChecked()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " clickable=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isClickable()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " enabled=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isEnabled()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " focusable=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isFocusable()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " focused=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isFocused()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " scrollable=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isScrollable()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " long-clickable=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isLongClickable()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " password=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isPassword()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V
    const-string v1, " selected=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isSelected()Z
    move-result v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->flag(Ljava/lang/String;Z)V

    # Rect.intersect leaves the bounds as they are when they lie wholly
    # off the display, as getVisibleBoundsInScreen does.
    new-instance v1, Landroid/graphics/Rect;
    invoke-direct {v1}, Landroid/graphics/Rect;-><init>()V
    invoke-virtual {p0, v1}, Landroid/view/accessibility/AccessibilityNodeInfo;->getBoundsInScreen(Landroid/graphics/Rect;)V
    const/4 v2, 0
    sget v3, Lcom/adbconnector/helper/Dumper;->w:I
    sget v4, Lcom/adbconnector/helper/Dumper;->h:I
    invoke-virtual {v1, v2, v2, v3, v4}, Landroid/graphics/Rect;->intersect(IIII)Z
    const-string v2, " bounds=\""
    invoke-virtual {v0, v2}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v1}, Landroid/graphics/Rect;->toShortString()Ljava/lang/String;
    move-result-object v2
    invoke-virtual {v0, v2}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const/16 v1, 0x22
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;

    sget-boolean v1, Lcom/adbconnector/helper/Dumper;->extra:Z
    if-eqz v1, :children
    const-string v1, " drawing-order=\""
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getDrawingOrder()I
    move-result v1
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const/16 v1, 0x22
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    const-string v1, " hint=\""
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getHintText()Ljava/lang/CharSequence;
    move-result-object v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Dumper;->str(Ljava/lang/String;Ljava/lang/CharSequence;)V

    :children
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getChildCount()I
    move-result v3
    const/4 v4, 0
    const/4 v5, 0
    :loop
    if-ge v4, v3, :close
    invoke-virtual {p0, v4}, Landroid/view/accessibility/AccessibilityNodeInfo;->getChild(I)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v6
    if-eqz v6, :next
    invoke-virtual {v6}, Landroid/view/accessibility/AccessibilityNodeInfo;->isVisibleToUser()Z
    move-result v7
    if-eqz v7, :next
    if-nez v5, :opened
    const/16 v1, 0x3e
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    const/4 v5, 1
    :opened
    invoke-static {v6, v4}, Lcom/adbconnector/helper/Dumper;->node(Landroid/view/accessibility/AccessibilityNodeInfo;I)V
    :next
    add-int/lit8 v4, v4, 1
    goto :loop
    :close
    if-eqz v5, :empty
    const-string v1, "</node>"
    goto :write
    :empty
    const-string v1, " />"
    :write
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    return-void
.end method
