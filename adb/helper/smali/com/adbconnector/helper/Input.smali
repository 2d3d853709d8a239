.class public Lcom/adbconnector/helper/Input;
.super Ljava/lang/Object;
.source "Input.smali"

# Touches and keys injected as the shell user through the input manager's
# injectInputEvent(InputEvent, int), found by reflection as scrcpy's server
# does (wrappers/InputManager): on InputManagerGlobal from Android 14, where
# InputManager.getInstance() is gone, else on InputManager. Mode 2
# (INJECT_INPUT_EVENT_MODE_WAIT_FOR_FINISH) returns once the event was
# dispatched, so the next step sees its effect. Timing follows AOSP
# InputShellCommand (`input tap`, `input swipe`, `input keyevent`).

.field static im:Ljava/lang/Object;
.field static inj:Ljava/lang/reflect/Method;

.method static init()Ljava/lang/String;
    .registers 8
    :try_start
    :global_start
    const-string v0, "android.hardware.input.InputManagerGlobal"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    :global_end
    .catch Ljava/lang/ClassNotFoundException; {:global_start .. :global_end} :legacy
    goto :found
    :legacy
    const-class v0, Landroid/hardware/input/InputManager;
    :found
    const/4 v1, 0
    new-array v2, v1, [Ljava/lang/Class;
    const-string v3, "getInstance"
    invoke-virtual {v0, v3, v2}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v3
    new-array v4, v1, [Ljava/lang/Object;
    const/4 v5, 0
    invoke-virtual {v3, v5, v4}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v3
    if-eqz v3, :no_instance
    sput-object v3, Lcom/adbconnector/helper/Input;->im:Ljava/lang/Object;
    const/4 v1, 2
    new-array v2, v1, [Ljava/lang/Class;
    const/4 v1, 0
    const-class v4, Landroid/view/InputEvent;
    aput-object v4, v2, v1
    const/4 v1, 1
    sget-object v4, Ljava/lang/Integer;->TYPE:Ljava/lang/Class;
    aput-object v4, v2, v1
    const-string v4, "injectInputEvent"
    invoke-virtual {v0, v4, v2}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v4
    sput-object v4, Lcom/adbconnector/helper/Input;->inj:Ljava/lang/reflect/Method;
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    const/4 v0, 0
    return-object v0
    :no_instance
    const-string v0, "input: no input manager"
    return-object v0
    :failed
    move-exception v0
    invoke-virtual {v0}, Ljava/lang/Throwable;->printStackTrace()V
    invoke-static {v0}, Lcom/adbconnector/helper/Main;->root(Ljava/lang/Throwable;)Ljava/lang/Throwable;
    move-result-object v0
    new-instance v1, Ljava/lang/StringBuilder;
    const-string v2, "input: "
    invoke-direct {v1, v2}, Ljava/lang/StringBuilder;-><init>(Ljava/lang/String;)V
    invoke-virtual {v0}, Ljava/lang/Object;->getClass()Ljava/lang/Class;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Class;->getName()Ljava/lang/String;
    move-result-object v0
    invoke-virtual {v1, v0}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v1}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v0
    return-object v0
.end method

.method static inject(Landroid/view/InputEvent;)V
    .registers 7
    sget-object v0, Lcom/adbconnector/helper/Input;->inj:Ljava/lang/reflect/Method;
    if-nez v0, :have
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "unsupported"
    const-string v2, "input injection unavailable"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
    :have
    sget-object v1, Lcom/adbconnector/helper/Input;->im:Ljava/lang/Object;
    const/4 v2, 2
    new-array v3, v2, [Ljava/lang/Object;
    const/4 v4, 0
    aput-object p0, v3, v4
    invoke-static {v2}, Ljava/lang/Integer;->valueOf(I)Ljava/lang/Integer;
    move-result-object v4
    const/4 v5, 1
    aput-object v4, v3, v5
    invoke-virtual {v0, v1, v3}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v0
    check-cast v0, Ljava/lang/Boolean;
    invoke-virtual {v0}, Ljava/lang/Boolean;->booleanValue()Z
    move-result v0
    if-eqz v0, :refused
    return-void
    :refused
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "refused"
    const-string v2, "input event refused"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
.end method

.method static now()J
    .registers 2
    invoke-static {}, Landroid/os/SystemClock;->uptimeMillis()J
    move-result-wide v0
    return-wide v0
.end method

.method static sleep(J)V
    .registers 4
    const-wide/16 v0, 0
    cmp-long v0, p0, v0
    if-gtz v0, :go
    return-void
    :go
    invoke-static {p0, p1}, Ljava/lang/Thread;->sleep(J)V
    return-void
.end method

# touch injects one single-pointer touchscreen MotionEvent.
.method static touch(IJJFF)V
    .registers 16
    # obtain(long downTime, long eventTime, int action, float x, float y, int metaState)
    move-wide v0, p1
    move-wide v2, p3
    move v4, p0
    move v5, p5
    move v6, p6
    const/4 v7, 0
    invoke-static/range {v0 .. v7}, Landroid/view/MotionEvent;->obtain(JJIFFI)Landroid/view/MotionEvent;
    move-result-object v0
    const/16 v1, 0x1002
    invoke-virtual {v0, v1}, Landroid/view/MotionEvent;->setSource(I)V
    invoke-static {v0}, Lcom/adbconnector/helper/Input;->inject(Landroid/view/InputEvent;)V
    invoke-virtual {v0}, Landroid/view/MotionEvent;->recycle()V
    return-void
.end method

.method static lerp(FFF)F
    .registers 4
    sub-float v0, p1, p0
    mul-float/2addr v0, p2
    add-float/2addr v0, p0
    return v0
.end method

# TAP: i32 x, i32 y, u32 hold_ms, u8 count. A tap is down and up at once
# (`input tap`); a hold keeps the finger down hold_ms (a long press from
# 500); a double tap is two taps 100 ms apart, well inside the 300 ms
# ViewConfiguration double-tap timeout.
.method static tap(Ljava/io/DataInputStream;)V
    .registers 16
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v8
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v9
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v10
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readUnsignedByte()I
    move-result v11
    invoke-static {p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    if-ltz v10, :bad
    const/4 v0, 1
    if-lt v11, v0, :bad
    const/4 v0, 2
    if-gt v11, v0, :bad
    int-to-float v8, v8
    int-to-float v9, v9
    const/4 v12, 0
    :again
    if-ge v12, v11, :done
    if-eqz v12, :first
    const-wide/16 v0, 100
    invoke-static {v0, v1}, Lcom/adbconnector/helper/Input;->sleep(J)V
    :first
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v2
    move-wide v4, v2
    const/4 v1, 0
    move v6, v8
    move v7, v9
    invoke-static/range {v1 .. v7}, Lcom/adbconnector/helper/Input;->touch(IJJFF)V
    int-to-long v0, v10
    invoke-static {v0, v1}, Lcom/adbconnector/helper/Input;->sleep(J)V
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v4
    const/4 v1, 1
    invoke-static/range {v1 .. v7}, Lcom/adbconnector/helper/Input;->touch(IJJFF)V
    add-int/lit8 v12, v12, 1
    goto :again
    :done
    return-void
    :bad
    const-string v0, "tap: hold or count out of range"
    invoke-static {v0}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v0
    throw v0
.end method

# steps: one move every 16 ms (a 60 Hz frame), at least one.
.method static steps(I)I
    .registers 3
    div-int/lit8 v0, p0, 16
    const/4 v1, 1
    if-ge v0, v1, :ok
    move v0, v1
    :ok
    return v0
.end method

# at returns down + dur*i/n, when move i of n is due.
.method static at(JIII)J
    .registers 10
    int-to-long v0, p2
    int-to-long v2, p3
    mul-long/2addr v0, v2
    int-to-long v2, p4
    div-long/2addr v0, v2
    add-long/2addr v0, p0
    return-wide v0
.end method

# SWIPE: i32 x1, y1, x2, y2, u32 duration_ms: down, moves along the line
# paced to the duration, up (`input swipe`).
.method static swipe(Ljava/io/DataInputStream;)V
    .registers 24
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v8
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v9
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v10
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v11
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v12
    invoke-static/range {p0 .. p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    if-ltz v12, :bad
    int-to-float v8, v8
    int-to-float v9, v9
    int-to-float v10, v10
    int-to-float v11, v11
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v13
    move-wide v2, v13
    move-wide v4, v13
    const/4 v1, 0
    move v6, v8
    move v7, v9
    invoke-static/range {v1 .. v7}, Lcom/adbconnector/helper/Input;->touch(IJJFF)V
    invoke-static {v12}, Lcom/adbconnector/helper/Input;->steps(I)I
    move-result v15
    const/16 v16, 1
    :move
    move/from16 v0, v16
    if-gt v0, v15, :moved
    move-wide v2, v13
    move v4, v12
    move v5, v0
    move v6, v15
    invoke-static/range {v2 .. v6}, Lcom/adbconnector/helper/Input;->at(JIII)J
    move-result-wide v4
    move-wide/from16 v17, v4
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v0
    sub-long v0, v4, v0
    invoke-static {v0, v1}, Lcom/adbconnector/helper/Input;->sleep(J)V
    move/from16 v0, v16
    int-to-float v0, v0
    int-to-float v1, v15
    div-float/2addr v0, v1
    invoke-static {v8, v10, v0}, Lcom/adbconnector/helper/Input;->lerp(FFF)F
    move-result v6
    invoke-static {v9, v11, v0}, Lcom/adbconnector/helper/Input;->lerp(FFF)F
    move-result v7
    move-wide v2, v13
    move-wide/from16 v4, v17
    const/4 v1, 2
    invoke-static/range {v1 .. v7}, Lcom/adbconnector/helper/Input;->touch(IJJFF)V
    add-int/lit8 v16, v16, 1
    goto :move
    :moved
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v4
    move-wide v2, v13
    const/4 v1, 1
    move v6, v10
    move v7, v11
    invoke-static/range {v1 .. v7}, Lcom/adbconnector/helper/Input;->touch(IJJFF)V
    return-void
    :bad
    const-string v0, "swipe: duration out of range"
    invoke-static {v0}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v0
    throw v0
.end method

# keyEvent builds a KeyEvent as `input keyevent` does: no meta state, the
# virtual keyboard device (-1), source SOURCE_KEYBOARD.
.method static keyEvent(JJIIII)Landroid/view/KeyEvent;
    .registers 21
    new-instance v0, Landroid/view/KeyEvent;
    move-wide/from16 v1, p0
    move-wide/from16 v3, p2
    move/from16 v5, p4
    move/from16 v6, p5
    move/from16 v7, p6
    const/4 v8, 0
    const/4 v9, -1
    const/4 v10, 0
    move/from16 v11, p7
    const/16 v12, 0x101
    invoke-direct/range {v0 .. v12}, Landroid/view/KeyEvent;-><init>(JJIIIIIIII)V
    return-object v0
.end method

# KEY: u32 keycode, u8 long. A long press repeats the down after the
# 500 ms long-press timeout with FLAG_LONG_PRESS, then the up.
.method static key(Ljava/io/DataInputStream;)V
    .registers 16
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v12
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readUnsignedByte()I
    move-result v13
    invoke-static {p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    if-ltz v12, :bad
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v10
    move-wide v0, v10
    move-wide v2, v10
    const/4 v4, 0
    move v5, v12
    const/4 v6, 0
    const/4 v7, 0
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->keyEvent(JJIIII)Landroid/view/KeyEvent;
    move-result-object v8
    invoke-static {v8}, Lcom/adbconnector/helper/Input;->inject(Landroid/view/InputEvent;)V
    if-eqz v13, :up
    const-wide/16 v0, 500
    invoke-static {v0, v1}, Lcom/adbconnector/helper/Input;->sleep(J)V
    move-wide v0, v10
    const-wide/16 v2, 500
    add-long/2addr v2, v10
    const/4 v4, 0
    move v5, v12
    const/4 v6, 1
    const/16 v7, 0x80
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->keyEvent(JJIIII)Landroid/view/KeyEvent;
    move-result-object v8
    invoke-static {v8}, Lcom/adbconnector/helper/Input;->inject(Landroid/view/InputEvent;)V
    :up
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v2
    move-wide v0, v10
    const/4 v4, 1
    move v5, v12
    const/4 v6, 0
    const/4 v7, 0
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->keyEvent(JJIIII)Landroid/view/KeyEvent;
    move-result-object v8
    invoke-static {v8}, Lcom/adbconnector/helper/Input;->inject(Landroid/view/InputEvent;)V
    return-void
    :bad
    const-string v0, "key: keycode out of range"
    invoke-static {v0}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v0
    throw v0
.end method

# multi injects one two-finger MotionEvent (pointer ids 0 and 1).
.method static multi(IJJI[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;)V
    .registers 24
    # obtain(downTime, eventTime, action, pointerCount, properties, coords,
    #        metaState, buttonState, xPrecision, yPrecision, deviceId,
    #        edgeFlags, source, flags)
    move-wide/from16 v0, p1
    move-wide/from16 v2, p3
    move/from16 v4, p0
    move/from16 v5, p5
    move-object/from16 v6, p6
    move-object/from16 v7, p7
    const/4 v8, 0
    const/4 v9, 0
    const/high16 v10, 0x3f800000
    const/high16 v11, 0x3f800000
    const/4 v12, 0
    const/4 v13, 0
    const/16 v14, 0x1002
    const/4 v15, 0
    invoke-static/range {v0 .. v15}, Landroid/view/MotionEvent;->obtain(JJII[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;IIFFIIII)Landroid/view/MotionEvent;
    move-result-object v0
    invoke-static {v0}, Lcom/adbconnector/helper/Input;->inject(Landroid/view/InputEvent;)V
    invoke-virtual {v0}, Landroid/view/MotionEvent;->recycle()V
    return-void
.end method

# spread puts the two fingers half apart either side of (cx, cy).
.method static spread([Landroid/view/MotionEvent$PointerCoords;FFF)V
    .registers 7
    const/4 v0, 0
    aget-object v0, p0, v0
    sub-float v1, p1, p3
    iput v1, v0, Landroid/view/MotionEvent$PointerCoords;->x:F
    iput p2, v0, Landroid/view/MotionEvent$PointerCoords;->y:F
    const/4 v0, 1
    aget-object v0, p0, v0
    add-float v1, p1, p3
    iput v1, v0, Landroid/view/MotionEvent$PointerCoords;->x:F
    iput p2, v0, Landroid/view/MotionEvent$PointerCoords;->y:F
    return-void
.end method

# PINCH: i32 cx, cy, u32 scale_milli, u32 duration_ms. Two fingers on a
# horizontal line through the centre move from half-distance a to
# a*scale: 150 px apart each side to zoom in, from 150/scale to 150 to
# zoom out.
.method static pinch(Ljava/io/DataInputStream;)V
    .registers 32
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v16
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v17
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v18
    invoke-virtual/range {p0 .. p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v19
    invoke-static/range {p0 .. p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    if-gtz v18, :ok_scale
    goto :bad
    :ok_scale
    if-gez v19, :ok_dur
    goto :bad
    :ok_dur
    move/from16 v0, v16
    int-to-float v0, v0
    move/from16 v16, v0
    move/from16 v0, v17
    int-to-float v0, v0
    move/from16 v17, v0
    # v20 = a (start half-distance), v21 = b (end)
    move/from16 v0, v18
    int-to-float v0, v0
    const/16 v1, 1000
    int-to-float v1, v1
    div-float/2addr v0, v1
    move/from16 v22, v0
    const/high16 v1, 0x43160000
    const/high16 v2, 0x3f800000
    cmpg-float v3, v0, v2
    if-gez v3, :zoom_in
    div-float v1, v1, v0
    :zoom_in
    move/from16 v20, v1
    mul-float v1, v1, v0
    move/from16 v21, v1

    # two pointers: ids 0 and 1, fingers, pressure and size 1
    const/4 v0, 2
    new-array v1, v0, [Landroid/view/MotionEvent$PointerProperties;
    move-object/from16 v23, v1
    new-array v1, v0, [Landroid/view/MotionEvent$PointerCoords;
    move-object/from16 v24, v1
    const/4 v1, 0
    :mk
    if-ge v1, v0, :made
    new-instance v2, Landroid/view/MotionEvent$PointerProperties;
    invoke-direct {v2}, Landroid/view/MotionEvent$PointerProperties;-><init>()V
    iput v1, v2, Landroid/view/MotionEvent$PointerProperties;->id:I
    const/4 v3, 1
    iput v3, v2, Landroid/view/MotionEvent$PointerProperties;->toolType:I
    aput-object v2, v23, v1
    new-instance v2, Landroid/view/MotionEvent$PointerCoords;
    invoke-direct {v2}, Landroid/view/MotionEvent$PointerCoords;-><init>()V
    const/high16 v3, 0x3f800000
    iput v3, v2, Landroid/view/MotionEvent$PointerCoords;->pressure:F
    iput v3, v2, Landroid/view/MotionEvent$PointerCoords;->size:F
    aput-object v2, v24, v1
    add-int/lit8 v1, v1, 1
    goto :mk
    :made
    move-object/from16 v0, v24
    move/from16 v1, v16
    move/from16 v2, v17
    move/from16 v3, v20
    invoke-static {v0, v1, v2, v3}, Lcom/adbconnector/helper/Input;->spread([Landroid/view/MotionEvent$PointerCoords;FFF)V
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v25
    # down of the first finger, then ACTION_POINTER_DOWN for pointer 1
    const/4 v0, 0
    move-wide/from16 v1, v25
    move-wide/from16 v3, v25
    const/4 v5, 1
    move-object/from16 v6, v23
    move-object/from16 v7, v24
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->multi(IJJI[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;)V
    const/16 v0, 0x105
    const/4 v5, 2
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->multi(IJJI[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;)V
    invoke-static/range {v19 .. v19}, Lcom/adbconnector/helper/Input;->steps(I)I
    move-result v27
    const/16 v28, 1
    :move
    move/from16 v0, v28
    move/from16 v1, v27
    if-le v0, v1, :step
    goto :moved
    :step
    move-wide/from16 v0, v25
    move/from16 v2, v19
    move/from16 v3, v28
    move/from16 v4, v27
    invoke-static/range {v0 .. v4}, Lcom/adbconnector/helper/Input;->at(JIII)J
    move-result-wide v29
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v0
    move-wide/from16 v2, v29
    sub-long v0, v2, v0
    invoke-static {v0, v1}, Lcom/adbconnector/helper/Input;->sleep(J)V
    move/from16 v0, v28
    int-to-float v0, v0
    move/from16 v1, v27
    int-to-float v1, v1
    div-float/2addr v0, v1
    move/from16 v1, v20
    move/from16 v2, v21
    invoke-static {v1, v2, v0}, Lcom/adbconnector/helper/Input;->lerp(FFF)F
    move-result v3
    move-object/from16 v0, v24
    move/from16 v1, v16
    move/from16 v2, v17
    invoke-static {v0, v1, v2, v3}, Lcom/adbconnector/helper/Input;->spread([Landroid/view/MotionEvent$PointerCoords;FFF)V
    const/4 v0, 2
    move-wide/from16 v1, v25
    move-wide/from16 v3, v29
    const/4 v5, 2
    move-object/from16 v6, v23
    move-object/from16 v7, v24
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->multi(IJJI[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;)V
    add-int/lit8 v28, v28, 1
    goto :move
    :moved
    # ACTION_POINTER_UP for pointer 1, then the last finger's up
    invoke-static {}, Lcom/adbconnector/helper/Input;->now()J
    move-result-wide v3
    move-wide/from16 v1, v25
    const/16 v0, 0x106
    const/4 v5, 2
    move-object/from16 v6, v23
    move-object/from16 v7, v24
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->multi(IJJI[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;)V
    const/4 v0, 1
    const/4 v5, 1
    invoke-static/range {v0 .. v7}, Lcom/adbconnector/helper/Input;->multi(IJJI[Landroid/view/MotionEvent$PointerProperties;[Landroid/view/MotionEvent$PointerCoords;)V
    return-void
    :bad
    const-string v0, "pinch: scale or duration out of range"
    invoke-static {v0}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v0
    throw v0
.end method
