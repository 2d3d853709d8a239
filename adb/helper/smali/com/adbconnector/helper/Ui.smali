.class public Lcom/adbconnector/helper/Ui;
.super Ljava/lang/Object;
.source "Ui.smali"

# The UiAutomation, connected once for the helper's life as `uiautomator`
# does it from app_process (AOSP cmds/uiautomator UiAutomationShellWrapper:
# a HandlerThread's looper and a new UiAutomationConnection), with the
# differences between SDKs found by reflection.

.field static ua:Landroid/app/UiAutomation;
.field static why:Ljava/lang/String;
.field static clearM:Ljava/lang/reflect/Method;
.field static clearT:Ljava/lang/Object;
# how says which constructor and cache-clearing path this SDK took (stderr).
.field static how:Ljava/lang/String;

# init connects; null when connected, else the reason HELLO gives.
.method static init()Ljava/lang/String;
    .registers 10
    :try_start
    new-instance v0, Landroid/os/HandlerThread;
    const-string v1, "adbc-uiautomation"
    invoke-direct {v0, v1}, Landroid/os/HandlerThread;-><init>(Ljava/lang/String;)V
    invoke-virtual {v0}, Landroid/os/HandlerThread;->start()V
    invoke-virtual {v0}, Landroid/os/HandlerThread;->getLooper()Landroid/os/Looper;
    move-result-object v1
    const-string v2, "android.app.UiAutomationConnection"
    invoke-static {v2}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v2
    invoke-virtual {v2}, Ljava/lang/Class;->newInstance()Ljava/lang/Object;
    move-result-object v2
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Ui;->make(Landroid/os/Looper;Ljava/lang/Object;)Landroid/app/UiAutomation;
    move-result-object v3
    invoke-static {v3}, Lcom/adbconnector/helper/Ui;->connect(Landroid/app/UiAutomation;)V
    sput-object v3, Lcom/adbconnector/helper/Ui;->ua:Landroid/app/UiAutomation;
    # Every interactive window (dialogs, the keyboard, system bars), not
    # only the active one: getWindows() needs this flag.
    invoke-virtual {v3}, Landroid/app/UiAutomation;->getServiceInfo()Landroid/accessibilityservice/AccessibilityServiceInfo;
    move-result-object v4
    if-eqz v4, :no_info
    iget v5, v4, Landroid/accessibilityservice/AccessibilityServiceInfo;->flags:I
    or-int/lit8 v5, v5, 0x40
    iput v5, v4, Landroid/accessibilityservice/AccessibilityServiceInfo;->flags:I
    invoke-virtual {v3, v4}, Landroid/app/UiAutomation;->setServiceInfo(Landroid/accessibilityservice/AccessibilityServiceInfo;)V
    :no_info
    invoke-static {}, Lcom/adbconnector/helper/Ui;->findClearCache()V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    const/4 v0, 0
    return-object v0
    :failed
    move-exception v0
    invoke-static {v0}, Lcom/adbconnector/helper/Main;->root(Ljava/lang/Throwable;)Ljava/lang/Throwable;
    move-result-object v0
    # One UiAutomation at a time system-wide: the service refuses a second
    # with IllegalStateException ("UiAutomationService ... already
    # registered!"). Someone else (uiautomator2, Appium, a running
    # `uiautomator`, monkey) holds it: never take it by force.
    instance-of v1, v0, Ljava/lang/IllegalStateException;
    if-eqz v1, :other
    const-string v1, "uiautomation busy"
    goto :set
    :other
    invoke-virtual {v0}, Ljava/lang/Throwable;->printStackTrace()V
    new-instance v1, Ljava/lang/StringBuilder;
    const-string v2, "uiautomation: "
    invoke-direct {v1, v2}, Ljava/lang/StringBuilder;-><init>(Ljava/lang/String;)V
    invoke-virtual {v0}, Ljava/lang/Object;->getClass()Ljava/lang/Class;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Class;->getName()Ljava/lang/String;
    move-result-object v0
    invoke-virtual {v1, v0}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v1}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v1
    :set
    sput-object v1, Lcom/adbconnector/helper/Ui;->why:Ljava/lang/String;
    return-object v1
.end method

# make builds the UiAutomation. Android 14 added UiAutomation(Context,
# IUiAutomationConnection) and deprecated the Looper variant (which
# "assumes DEFAULT_DISPLAY"): where the Context one exists it gets a system
# Context, made as scrcpy's server makes one in app_process (a new
# ActivityThread's getSystemContext()); on older SDKs, or if that fails,
# UiAutomation(Looper, IUiAutomationConnection) as `uiautomator` does.
.method static make(Landroid/os/Looper;Ljava/lang/Object;)Landroid/app/UiAutomation;
    .registers 10
    const-class v0, Landroid/app/UiAutomation;
    const-string v1, "android.app.IUiAutomationConnection"
    invoke-static {v1}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v1
    const/4 v2, 2
    new-array v3, v2, [Ljava/lang/Class;
    const/4 v4, 1
    aput-object v1, v3, v4
    new-array v5, v2, [Ljava/lang/Object;
    aput-object p1, v5, v4
    const/4 v4, 0
    :try_start
    const-class v6, Landroid/content/Context;
    aput-object v6, v3, v4
    invoke-virtual {v0, v3}, Ljava/lang/Class;->getConstructor([Ljava/lang/Class;)Ljava/lang/reflect/Constructor;
    move-result-object v6
    invoke-static {}, Lcom/adbconnector/helper/Ui;->systemContext()Ljava/lang/Object;
    move-result-object v7
    aput-object v7, v5, v4
    invoke-virtual {v6, v5}, Ljava/lang/reflect/Constructor;->newInstance([Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v6
    check-cast v6, Landroid/app/UiAutomation;
    const-string v7, "UiAutomation(Context)"
    sput-object v7, Lcom/adbconnector/helper/Ui;->how:Ljava/lang/String;
    return-object v6
    :try_end
    .catch Ljava/lang/NoSuchMethodException; {:try_start .. :try_end} :with_looper
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :context_failed
    :context_failed
    move-exception v6
    invoke-virtual {v6}, Ljava/lang/Throwable;->printStackTrace()V
    :with_looper
    const-class v6, Landroid/os/Looper;
    aput-object v6, v3, v4
    invoke-virtual {v0, v3}, Ljava/lang/Class;->getConstructor([Ljava/lang/Class;)Ljava/lang/reflect/Constructor;
    move-result-object v6
    aput-object p0, v5, v4
    invoke-virtual {v6, v5}, Ljava/lang/reflect/Constructor;->newInstance([Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v6
    check-cast v6, Landroid/app/UiAutomation;
    const-string v7, "UiAutomation(Looper)"
    sput-object v7, Lcom/adbconnector/helper/Ui;->how:Ljava/lang/String;
    return-object v6
.end method

.method static systemContext()Ljava/lang/Object;
    .registers 6
    const-string v0, "android.app.ActivityThread"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    const/4 v1, 0
    new-array v2, v1, [Ljava/lang/Class;
    new-array v3, v1, [Ljava/lang/Object;
    invoke-virtual {v0, v2}, Ljava/lang/Class;->getDeclaredConstructor([Ljava/lang/Class;)Ljava/lang/reflect/Constructor;
    move-result-object v4
    const/4 v5, 1
    invoke-virtual {v4, v5}, Ljava/lang/reflect/Constructor;->setAccessible(Z)V
    invoke-virtual {v4, v3}, Ljava/lang/reflect/Constructor;->newInstance([Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v4
    # Framework code that looks up the current ActivityThread finds this
    # one (scrcpy's Workarounds set sCurrentActivityThread too); best effort.
    :try_start
    const-string v5, "sCurrentActivityThread"
    invoke-virtual {v0, v5}, Ljava/lang/Class;->getDeclaredField(Ljava/lang/String;)Ljava/lang/reflect/Field;
    move-result-object v5
    const/4 v1, 1
    invoke-virtual {v5, v1}, Ljava/lang/reflect/Field;->setAccessible(Z)V
    const/4 v1, 0
    invoke-virtual {v5, v1, v4}, Ljava/lang/reflect/Field;->set(Ljava/lang/Object;Ljava/lang/Object;)V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :no_current
    :no_current
    const-string v5, "getSystemContext"
    invoke-virtual {v0, v5, v2}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v5
    invoke-virtual {v5, v4, v3}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v0
    return-object v0
.end method

# connect uses the hidden connect(int flags) (API 24+) with
# FLAG_DONT_SUPPRESS_ACCESSIBILITY_SERVICES, so TalkBack and other services
# keep running while we are connected; plain connect() where it is absent.
.method static connect(Landroid/app/UiAutomation;)V
    .registers 8
    const-class v0, Landroid/app/UiAutomation;
    const-string v1, "connect"
    const/4 v2, 1
    new-array v3, v2, [Ljava/lang/Class;
    sget-object v4, Ljava/lang/Integer;->TYPE:Ljava/lang/Class;
    const/4 v5, 0
    aput-object v4, v3, v5
    :try_start
    invoke-virtual {v0, v1, v3}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v4
    :try_end
    .catch Ljava/lang/NoSuchMethodException; {:try_start .. :try_end} :plain
    new-array v3, v2, [Ljava/lang/Object;
    invoke-static {v2}, Ljava/lang/Integer;->valueOf(I)Ljava/lang/Integer;
    move-result-object v6
    aput-object v6, v3, v5
    invoke-virtual {v4, p0, v3}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    return-void
    :plain
    new-array v3, v5, [Ljava/lang/Class;
    invoke-virtual {v0, v1, v3}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v4
    new-array v3, v5, [Ljava/lang/Object;
    invoke-virtual {v4, p0, v3}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    return-void
.end method

# findClearCache picks how to drop the accessibility cache before each
# walk (without it a walk can return nodes of a screen already gone:
# mobile-next/mobilecli #415): UiAutomation.clearCache() on Android 14+,
# else AccessibilityInteractionClient.getInstance().clearCache(), else
# (clearM null) setServiceInfo, which clears it as a side effect.
.method static findClearCache()V
    .registers 6
    const/4 v0, 0
    new-array v1, v0, [Ljava/lang/Class;
    const-string v2, "clearCache"
    :try_start
    const-class v3, Landroid/app/UiAutomation;
    invoke-virtual {v3, v2, v1}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v3
    sput-object v3, Lcom/adbconnector/helper/Ui;->clearM:Ljava/lang/reflect/Method;
    sget-object v3, Lcom/adbconnector/helper/Ui;->ua:Landroid/app/UiAutomation;
    sput-object v3, Lcom/adbconnector/helper/Ui;->clearT:Ljava/lang/Object;
    return-void
    :try_end
    .catch Ljava/lang/NoSuchMethodException; {:try_start .. :try_end} :client
    :client
    :try2_start
    const-string v3, "android.view.accessibility.AccessibilityInteractionClient"
    invoke-static {v3}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v3
    const-string v4, "getInstance"
    invoke-virtual {v3, v4, v1}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v4
    const/4 v5, 0
    new-array v0, v5, [Ljava/lang/Object;
    invoke-virtual {v4, v5, v0}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v4
    invoke-virtual {v3, v2, v1}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v3
    sput-object v4, Lcom/adbconnector/helper/Ui;->clearT:Ljava/lang/Object;
    sput-object v3, Lcom/adbconnector/helper/Ui;->clearM:Ljava/lang/reflect/Method;
    :try2_end
    .catch Ljava/lang/Throwable; {:try2_start .. :try2_end} :none
    return-void
    :none
    return-void
.end method

.method static clearCache()V
    .registers 4
    sget-object v0, Lcom/adbconnector/helper/Ui;->clearM:Ljava/lang/reflect/Method;
    if-eqz v0, :by_info
    sget-object v1, Lcom/adbconnector/helper/Ui;->clearT:Ljava/lang/Object;
    const/4 v2, 0
    new-array v2, v2, [Ljava/lang/Object;
    invoke-virtual {v0, v1, v2}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    return-void
    :by_info
    sget-object v0, Lcom/adbconnector/helper/Ui;->ua:Landroid/app/UiAutomation;
    invoke-virtual {v0}, Landroid/app/UiAutomation;->getServiceInfo()Landroid/accessibilityservice/AccessibilityServiceInfo;
    move-result-object v1
    if-eqz v1, :done
    invoke-virtual {v0, v1}, Landroid/app/UiAutomation;->setServiceInfo(Landroid/accessibilityservice/AccessibilityServiceInfo;)V
    :done
    return-void
.end method

# need refuses ops that need the UiAutomation when it is not connected:
# `busy` when another owner holds the slot.
.method static need()Landroid/app/UiAutomation;
    .registers 4
    sget-object v0, Lcom/adbconnector/helper/Ui;->ua:Landroid/app/UiAutomation;
    if-eqz v0, :missing
    return-object v0
    :missing
    sget-object v1, Lcom/adbconnector/helper/Ui;->why:Ljava/lang/String;
    const-string v2, "uiautomation busy"
    invoke-virtual {v2, v1}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v3
    if-eqz v3, :other
    const-string v3, "busy"
    goto :throw
    :other
    const-string v3, "unsupported"
    :throw
    new-instance v0, Lcom/adbconnector/helper/Fail;
    invoke-direct {v0, v3, v1}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
.end method

# tree answers TREE: wait until no accessibility event came for idle_ms
# (bounded by timeout_ms; a screen that never settles is dumped anyway once
# the cap passes, as an agent needs its tree), clear the cache, then
# serialise every interactive window's root as `uiautomator dump` does.
.method static tree(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    .registers 14
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v0
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v1
    invoke-static {p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    invoke-static {}, Lcom/adbconnector/helper/Ui;->need()Landroid/app/UiAutomation;
    move-result-object v11
    # u32 on the wire: beyond 2^31 is a bad request.
    if-ltz v0, :bad
    if-ltz v1, :bad
    int-to-long v2, v0
    int-to-long v4, v1
    :try_start
    invoke-virtual {v11, v2, v3, v4, v5}, Landroid/app/UiAutomation;->waitForIdle(JJ)V
    :try_end
    .catch Ljava/util/concurrent/TimeoutException; {:try_start .. :try_end} :settled
    :settled
    invoke-static {}, Lcom/adbconnector/helper/Ui;->clearCache()V

    # Rotation and the real display size, as DumpCommand reads them; the
    # bounds are clipped to that size.
    invoke-static {}, Landroid/hardware/display/DisplayManagerGlobal;->getInstance()Landroid/hardware/display/DisplayManagerGlobal;
    move-result-object v2
    const/4 v3, 0
    invoke-virtual {v2, v3}, Landroid/hardware/display/DisplayManagerGlobal;->getRealDisplay(I)Landroid/view/Display;
    move-result-object v2
    new-instance v4, Landroid/graphics/Point;
    invoke-direct {v4}, Landroid/graphics/Point;-><init>()V
    invoke-virtual {v2, v4}, Landroid/view/Display;->getRealSize(Landroid/graphics/Point;)V
    invoke-virtual {v2}, Landroid/view/Display;->getRotation()I
    move-result v2
    iget v5, v4, Landroid/graphics/Point;->x:I
    iget v6, v4, Landroid/graphics/Point;->y:I
    invoke-static {v2, v5, v6}, Lcom/adbconnector/helper/Dumper;->begin(III)V

    # Windows come top-most first, as getWindows() orders them (and as
    # androidx UiDevice.dumpWindowHierarchy writes them).
    invoke-virtual {v11}, Landroid/app/UiAutomation;->getWindows()Ljava/util/List;
    move-result-object v7
    invoke-interface {v7}, Ljava/util/List;->size()I
    move-result v8
    const/4 v9, 0
    const/4 v10, 0
    :win
    if-ge v9, v8, :wins_done
    invoke-interface {v7, v9}, Ljava/util/List;->get(I)Ljava/lang/Object;
    move-result-object v2
    check-cast v2, Landroid/view/accessibility/AccessibilityWindowInfo;
    invoke-virtual {v2}, Landroid/view/accessibility/AccessibilityWindowInfo;->getRoot()Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v2
    if-eqz v2, :win_next
    invoke-static {v2, v3}, Lcom/adbconnector/helper/Dumper;->node(Landroid/view/accessibility/AccessibilityNodeInfo;I)V
    add-int/lit8 v10, v10, 1
    :win_next
    add-int/lit8 v9, v9, 1
    goto :win
    :wins_done
    if-nez v10, :write
    invoke-virtual {v11}, Landroid/app/UiAutomation;->getRootInActiveWindow()Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v2
    if-eqz v2, :no_root
    invoke-static {v2, v3}, Lcom/adbconnector/helper/Dumper;->node(Landroid/view/accessibility/AccessibilityNodeInfo;I)V
    :write
    invoke-static {}, Lcom/adbconnector/helper/Dumper;->end()Ljava/lang/String;
    move-result-object v2
    sget v3, Lcom/adbconnector/helper/Dumper;->count:I
    invoke-virtual {p1, v3}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-static {p1, v2}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void
    :no_root
    # The screen is off (uiautomator dump: "null root node returned").
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "not_found"
    const-string v2, "null root node"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
    :bad
    const-string v0, "idle or timeout out of range"
    invoke-static {v0}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v0
    throw v0
.end method

# fieldAt returns the deepest editable node under (x, y), searching the
# windows top-most first and children last-drawn first; null when none.
.method static fieldAt(II)Landroid/view/accessibility/AccessibilityNodeInfo;
    .registers 8
    sget-object v0, Lcom/adbconnector/helper/Ui;->ua:Landroid/app/UiAutomation;
    invoke-virtual {v0}, Landroid/app/UiAutomation;->getWindows()Ljava/util/List;
    move-result-object v1
    invoke-interface {v1}, Ljava/util/List;->size()I
    move-result v2
    const/4 v3, 0
    :win
    if-ge v3, v2, :active
    invoke-interface {v1, v3}, Ljava/util/List;->get(I)Ljava/lang/Object;
    move-result-object v4
    check-cast v4, Landroid/view/accessibility/AccessibilityWindowInfo;
    invoke-virtual {v4}, Landroid/view/accessibility/AccessibilityWindowInfo;->getRoot()Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v4
    add-int/lit8 v3, v3, 1
    if-eqz v4, :win
    invoke-static {v4, p0, p1}, Lcom/adbconnector/helper/Ui;->find(Landroid/view/accessibility/AccessibilityNodeInfo;II)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v4
    if-eqz v4, :win
    return-object v4
    :active
    invoke-virtual {v0}, Landroid/app/UiAutomation;->getRootInActiveWindow()Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v4
    if-eqz v4, :none
    invoke-static {v4, p0, p1}, Lcom/adbconnector/helper/Ui;->find(Landroid/view/accessibility/AccessibilityNodeInfo;II)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v4
    :none
    return-object v4
.end method

.method static find(Landroid/view/accessibility/AccessibilityNodeInfo;II)Landroid/view/accessibility/AccessibilityNodeInfo;
    .registers 8
    new-instance v0, Landroid/graphics/Rect;
    invoke-direct {v0}, Landroid/graphics/Rect;-><init>()V
    invoke-virtual {p0, v0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getBoundsInScreen(Landroid/graphics/Rect;)V
    invoke-virtual {v0, p1, p2}, Landroid/graphics/Rect;->contains(II)Z
    move-result v1
    if-eqz v1, :no
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->getChildCount()I
    move-result v1
    :child
    add-int/lit8 v1, v1, -1
    if-ltz v1, :self
    invoke-virtual {p0, v1}, Landroid/view/accessibility/AccessibilityNodeInfo;->getChild(I)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v2
    if-eqz v2, :child
    invoke-static {v2, p1, p2}, Lcom/adbconnector/helper/Ui;->find(Landroid/view/accessibility/AccessibilityNodeInfo;II)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v2
    if-eqz v2, :child
    return-object v2
    :self
    invoke-virtual {p0}, Landroid/view/accessibility/AccessibilityNodeInfo;->isEditable()Z
    move-result v1
    if-eqz v1, :no
    return-object p0
    :no
    const/4 v0, 0
    return-object v0
.end method
