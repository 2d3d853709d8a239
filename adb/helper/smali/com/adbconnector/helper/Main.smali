.class public Lcom/adbconnector/helper/Main;
.super Ljava/lang/Object;
.source "Main.smali"

# The connector's resident phone helper, started by the host as the adb
# shell user with
#   CLASSPATH=/data/local/tmp/adbc-helper-<hash16>.jar app_process / com.adbconnector.helper.Main
# It speaks the helper wire protocol v1 on stdin/stdout (frames of u32
# length, u8 kind, u32 id, body; big-endian as DataInputStream reads them):
# HELLO first, then one answer per request, in order. stderr carries free
# diagnostics only, never typed text.

.field static out:Ljava/io/DataOutputStream;
.field static buf:Ljava/io/ByteArrayOutputStream;
.field static body:Ljava/io/DataOutputStream;

.method public static main([Ljava/lang/String;)V
    .registers 8
    # The frames go to the real stdout; System.out is pointed at stderr so
    # that a stray print (ours or the framework's) can never corrupt them.
    new-instance v0, Ljava/io/FileOutputStream;
    sget-object v1, Ljava/io/FileDescriptor;->out:Ljava/io/FileDescriptor;
    invoke-direct {v0, v1}, Ljava/io/FileOutputStream;-><init>(Ljava/io/FileDescriptor;)V
    new-instance v1, Ljava/io/BufferedOutputStream;
    const/high16 v2, 0x10000
    invoke-direct {v1, v0, v2}, Ljava/io/BufferedOutputStream;-><init>(Ljava/io/OutputStream;I)V
    new-instance v0, Ljava/io/DataOutputStream;
    invoke-direct {v0, v1}, Ljava/io/DataOutputStream;-><init>(Ljava/io/OutputStream;)V
    sput-object v0, Lcom/adbconnector/helper/Main;->out:Ljava/io/DataOutputStream;
    sget-object v0, Ljava/lang/System;->err:Ljava/io/PrintStream;
    invoke-static {v0}, Ljava/lang/System;->setOut(Ljava/io/PrintStream;)V

    new-instance v0, Ljava/io/ByteArrayOutputStream;
    invoke-direct {v0}, Ljava/io/ByteArrayOutputStream;-><init>()V
    sput-object v0, Lcom/adbconnector/helper/Main;->buf:Ljava/io/ByteArrayOutputStream;
    new-instance v1, Ljava/io/DataOutputStream;
    invoke-direct {v1, v0}, Ljava/io/DataOutputStream;-><init>(Ljava/io/OutputStream;)V
    sput-object v1, Lcom/adbconnector/helper/Main;->body:Ljava/io/DataOutputStream;

    new-instance v0, Ljava/io/FileInputStream;
    sget-object v1, Ljava/io/FileDescriptor;->in:Ljava/io/FileDescriptor;
    invoke-direct {v0, v1}, Ljava/io/FileInputStream;-><init>(Ljava/io/FileDescriptor;)V
    new-instance v1, Ljava/io/BufferedInputStream;
    invoke-direct {v1, v0, v2}, Ljava/io/BufferedInputStream;-><init>(Ljava/io/InputStream;I)V
    new-instance v6, Ljava/io/DataInputStream;
    invoke-direct {v6, v1}, Ljava/io/DataInputStream;-><init>(Ljava/io/InputStream;)V

    # A bare app_process has no main looper; framework classes that build a
    # Handler on it (clipboard, a system Context) throw without one
    # (mobile-next/devicekit-android PR #28). Preparing twice throws: ignore.
    :try_looper_start
    invoke-static {}, Landroid/os/Looper;->prepareMainLooper()V
    :try_looper_end
    .catch Ljava/lang/Throwable; {:try_looper_start .. :try_looper_end} :looper_done
    :looper_done

    # Each part reports null when it works, else why not; HELLO carries
    # the feature bits and the reasons, and the helper serves what it can.
    const/4 v3, 0
    const-string v4, ""
    invoke-static {}, Lcom/adbconnector/helper/Ui;->init()Ljava/lang/String;
    move-result-object v5
    if-nez v5, :ui_fail
    # tree, text and screenshot all go through the UiAutomation
    or-int/lit8 v3, v3, 0x15
    goto :ui_done
    :ui_fail
    invoke-static {v4, v5}, Lcom/adbconnector/helper/Main;->join(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    move-result-object v4
    :ui_done
    invoke-static {}, Lcom/adbconnector/helper/Input;->init()Ljava/lang/String;
    move-result-object v5
    if-nez v5, :in_fail
    or-int/lit8 v3, v3, 0x2
    goto :in_done
    :in_fail
    invoke-static {v4, v5}, Lcom/adbconnector/helper/Main;->join(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    move-result-object v4
    :in_done
    invoke-static {}, Lcom/adbconnector/helper/Clip;->init()Ljava/lang/String;
    move-result-object v5
    if-nez v5, :clip_fail
    or-int/lit8 v3, v3, 0x8
    goto :clip_done
    :clip_fail
    invoke-static {v4, v5}, Lcom/adbconnector/helper/Main;->join(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    move-result-object v4
    :clip_done
    invoke-static {}, Lcom/adbconnector/helper/Main;->diag()V

    :try_start
    invoke-static {v3, v4}, Lcom/adbconnector/helper/Main;->hello(ILjava/lang/String;)V
    invoke-static {v6}, Lcom/adbconnector/helper/Main;->loop(Ljava/io/DataInputStream;)V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :broken
    const/4 v0, 0
    invoke-static {v0}, Ljava/lang/System;->exit(I)V
    return-void
    :broken
    # A truncated frame or a closed stdout: the protocol is broken.
    move-exception v0
    invoke-virtual {v0}, Ljava/lang/Throwable;->printStackTrace()V
    const/4 v0, 2
    invoke-static {v0}, Ljava/lang/System;->exit(I)V
    return-void
.end method

.method static join(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;
    .registers 4
    invoke-virtual {p0}, Ljava/lang/String;->isEmpty()Z
    move-result v0
    if-eqz v0, :both
    return-object p1
    :both
    new-instance v0, Ljava/lang/StringBuilder;
    invoke-direct {v0, p0}, Ljava/lang/StringBuilder;-><init>(Ljava/lang/String;)V
    const-string v1, "; "
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0, p1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v0
    return-object v0
.end method

# version is "1.0.0+<hash16>": the host names the pushed jar after the first
# 16 hex digits of its sha256, and app_process gets it in CLASSPATH.
.method static version()Ljava/lang/String;
    .registers 6
    const-string v0, "dev"
    const-string v1, "CLASSPATH"
    invoke-static {v1}, Ljava/lang/System;->getenv(Ljava/lang/String;)Ljava/lang/String;
    move-result-object v1
    if-eqz v1, :done
    const-string v2, "adbc-helper-"
    invoke-virtual {v1, v2}, Ljava/lang/String;->lastIndexOf(Ljava/lang/String;)I
    move-result v2
    if-ltz v2, :done
    const-string v3, ".jar"
    invoke-virtual {v1, v3}, Ljava/lang/String;->endsWith(Ljava/lang/String;)Z
    move-result v3
    if-eqz v3, :done
    add-int/lit8 v2, v2, 12
    invoke-virtual {v1}, Ljava/lang/String;->length()I
    move-result v3
    add-int/lit8 v3, v3, -4
    if-gt v2, v3, :done
    invoke-virtual {v1, v2, v3}, Ljava/lang/String;->substring(II)Ljava/lang/String;
    move-result-object v0
    :done
    new-instance v1, Ljava/lang/StringBuilder;
    const-string v2, "1.0.0+"
    invoke-direct {v1, v2}, Ljava/lang/StringBuilder;-><init>(Ljava/lang/String;)V
    invoke-virtual {v1, v0}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v1}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v0
    return-object v0
.end method

.method static hello(ILjava/lang/String;)V
    .registers 5
    sget-object v0, Lcom/adbconnector/helper/Main;->body:Ljava/io/DataOutputStream;
    const-string v1, "ADBH"
    invoke-virtual {v0, v1}, Ljava/io/DataOutputStream;->writeBytes(Ljava/lang/String;)V
    const/4 v1, 1
    invoke-virtual {v0, v1}, Ljava/io/DataOutputStream;->writeShort(I)V
    invoke-static {}, Lcom/adbconnector/helper/Main;->version()Ljava/lang/String;
    move-result-object v1
    invoke-static {v0, v1}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    sget v1, Landroid/os/Build$VERSION;->SDK_INT:I
    invoke-virtual {v0, v1}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {v0, p0}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-static {v0, p1}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    const/4 v1, 1
    const/4 v2, 0
    invoke-static {v1, v2}, Lcom/adbconnector/helper/Main;->send(II)V
    return-void
.end method

# send frames what body holds as one message and empties it.
.method static send(II)V
    .registers 5
    sget-object v0, Lcom/adbconnector/helper/Main;->buf:Ljava/io/ByteArrayOutputStream;
    sget-object v1, Lcom/adbconnector/helper/Main;->out:Ljava/io/DataOutputStream;
    invoke-virtual {v0}, Ljava/io/ByteArrayOutputStream;->size()I
    move-result v2
    add-int/lit8 v2, v2, 5
    invoke-virtual {v1, v2}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {v1, p0}, Ljava/io/DataOutputStream;->writeByte(I)V
    invoke-virtual {v1, p1}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {v0, v1}, Ljava/io/ByteArrayOutputStream;->writeTo(Ljava/io/OutputStream;)V
    invoke-virtual {v1}, Ljava/io/DataOutputStream;->flush()V
    invoke-virtual {v0}, Ljava/io/ByteArrayOutputStream;->reset()V
    return-void
.end method

.method static loop(Ljava/io/DataInputStream;)V
    .registers 8
    :next
    # stdin closed between requests: the host is gone, exit 0.
    :try_start
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v0
    :try_end
    .catch Ljava/io/EOFException; {:try_start .. :try_end} :eof
    const/4 v1, 5
    if-lt v0, v1, :bad_length
    const/high16 v1, 0x1000000
    if-gt v0, v1, :bad_length
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readUnsignedByte()I
    move-result v1
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v2
    add-int/lit8 v0, v0, -5
    new-array v3, v0, [B
    invoke-virtual {p0, v3}, Ljava/io/DataInputStream;->readFully([B)V
    const/16 v4, 0x10
    if-ne v1, v4, :bad_kind
    invoke-static {v2, v3}, Lcom/adbconnector/helper/Main;->handle(I[B)Z
    move-result v4
    if-eqz v4, :next
    return-void
    :eof
    return-void
    :bad_length
    const-string v0, "adbc-helper: frame length out of range"
    goto :die
    :bad_kind
    const-string v0, "adbc-helper: unknown frame kind"
    :die
    sget-object v1, Ljava/lang/System;->err:Ljava/io/PrintStream;
    invoke-virtual {v1, v0}, Ljava/io/PrintStream;->println(Ljava/lang/String;)V
    const/4 v0, 2
    invoke-static {v0}, Ljava/lang/System;->exit(I)V
    return-void
.end method

# handle answers one request; true when it was QUIT.
.method static handle(I[B)Z
    .registers 9
    sget-object v0, Lcom/adbconnector/helper/Main;->buf:Ljava/io/ByteArrayOutputStream;
    invoke-virtual {v0}, Ljava/io/ByteArrayOutputStream;->reset()V
    new-instance v0, Ljava/io/ByteArrayInputStream;
    invoke-direct {v0, p1}, Ljava/io/ByteArrayInputStream;-><init>([B)V
    new-instance v1, Ljava/io/DataInputStream;
    invoke-direct {v1, v0}, Ljava/io/DataInputStream;-><init>(Ljava/io/InputStream;)V
    sget-object v2, Lcom/adbconnector/helper/Main;->body:Ljava/io/DataOutputStream;
    :try_start
    invoke-virtual {v1}, Ljava/io/DataInputStream;->readUnsignedByte()I
    move-result v3
    invoke-static {v3, v1, v2}, Lcom/adbconnector/helper/Main;->dispatch(ILjava/io/DataInputStream;Ljava/io/DataOutputStream;)Z
    move-result v4
    const/16 v3, 0x11
    invoke-static {v3, p0}, Lcom/adbconnector/helper/Main;->send(II)V
    :try_end
    .catch Lcom/adbconnector/helper/Fail; {:try_start .. :try_end} :fail
    .catch Ljava/io/EOFException; {:try_start .. :try_end} :short
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :internal
    return v4
    :fail
    move-exception v0
    iget-object v3, v0, Lcom/adbconnector/helper/Fail;->code:Ljava/lang/String;
    invoke-virtual {v0}, Lcom/adbconnector/helper/Fail;->getMessage()Ljava/lang/String;
    move-result-object v4
    invoke-static {p0, v3, v4}, Lcom/adbconnector/helper/Main;->error(ILjava/lang/String;Ljava/lang/String;)V
    const/4 v0, 0
    return v0
    :short
    const-string v3, "bad_request"
    const-string v4, "request too short"
    invoke-static {p0, v3, v4}, Lcom/adbconnector/helper/Main;->error(ILjava/lang/String;Ljava/lang/String;)V
    const/4 v0, 0
    return v0
    :internal
    # The message names the exception's class only: a framework message
    # could quote what was typed.
    move-exception v0
    invoke-virtual {v0}, Ljava/lang/Throwable;->printStackTrace()V
    invoke-static {v0}, Lcom/adbconnector/helper/Main;->root(Ljava/lang/Throwable;)Ljava/lang/Throwable;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Object;->getClass()Ljava/lang/Class;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Class;->getName()Ljava/lang/String;
    move-result-object v4
    const-string v3, "internal"
    invoke-static {p0, v3, v4}, Lcom/adbconnector/helper/Main;->error(ILjava/lang/String;Ljava/lang/String;)V
    const/4 v0, 0
    return v0
.end method

# root unwraps reflection's InvocationTargetException (and other causes).
.method static root(Ljava/lang/Throwable;)Ljava/lang/Throwable;
    .registers 3
    :again
    invoke-virtual {p0}, Ljava/lang/Throwable;->getCause()Ljava/lang/Throwable;
    move-result-object v0
    if-eqz v0, :done
    if-eq v0, p0, :done
    move-object p0, v0
    goto :again
    :done
    return-object p0
.end method

.method static error(ILjava/lang/String;Ljava/lang/String;)V
    .registers 5
    sget-object v0, Lcom/adbconnector/helper/Main;->buf:Ljava/io/ByteArrayOutputStream;
    invoke-virtual {v0}, Ljava/io/ByteArrayOutputStream;->reset()V
    sget-object v0, Lcom/adbconnector/helper/Main;->body:Ljava/io/DataOutputStream;
    invoke-static {v0, p1}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    invoke-static {v0, p2}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    const/16 v1, 0x12
    invoke-static {v1, p0}, Lcom/adbconnector/helper/Main;->send(II)V
    return-void
.end method

# done refuses a request with bytes left over, before anything runs: a
# malformed request never acts.
.method public static done(Ljava/io/DataInputStream;)V
    .registers 2
    invoke-virtual {p0}, Ljava/io/DataInputStream;->available()I
    move-result v0
    if-nez v0, :extra
    return-void
    :extra
    const-string v0, "trailing bytes after the request"
    invoke-static {v0}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v0
    throw v0
.end method

# dispatch runs one op; true when it was QUIT. Handlers read all of their
# fields and call done() before they act.
.method static dispatch(ILjava/io/DataInputStream;Ljava/io/DataOutputStream;)Z
    .registers 5
    packed-switch p0, :ops
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string p0, "unsupported"
    const-string v1, "unknown op"
    invoke-direct {v0, p0, v1}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
    :ping
    invoke-static {p1}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    goto :ok
    :tree
    invoke-static {p1, p2}, Lcom/adbconnector/helper/Ui;->tree(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    goto :ok
    :tap
    invoke-static {p1}, Lcom/adbconnector/helper/Input;->tap(Ljava/io/DataInputStream;)V
    goto :ok
    :swipe
    invoke-static {p1}, Lcom/adbconnector/helper/Input;->swipe(Ljava/io/DataInputStream;)V
    goto :ok
    :key
    invoke-static {p1}, Lcom/adbconnector/helper/Input;->key(Ljava/io/DataInputStream;)V
    goto :ok
    :text
    invoke-static {p1, p2}, Lcom/adbconnector/helper/Text;->type(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    goto :ok
    :clip_get
    invoke-static {p1, p2}, Lcom/adbconnector/helper/Clip;->getOp(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    goto :ok
    :clip_set
    invoke-static {p1}, Lcom/adbconnector/helper/Clip;->setOp(Ljava/io/DataInputStream;)V
    goto :ok
    :shot
    invoke-static {p1, p2}, Lcom/adbconnector/helper/Shot;->shot(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    goto :ok
    :pinch
    invoke-static {p1}, Lcom/adbconnector/helper/Input;->pinch(Ljava/io/DataInputStream;)V
    goto :ok
    :quit
    invoke-static {p1}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    const/4 v0, 1
    return v0
    :ok
    const/4 v0, 0
    return v0

    :ops
    .packed-switch 0x1
        :ping
        :tree
        :tap
        :swipe
        :key
        :text
        :clip_get
        :clip_set
        :shot
        :pinch
        :quit
    .end packed-switch
.end method

# diag writes to stderr which framework paths this phone's SDK took, for
# `doctor` and the tests: the UiAutomation constructor, the class whose
# clearCache is used (null: setServiceInfo), the class injecting input,
# and getPrimaryClip's parameter count.
.method static diag()V
    .registers 5
    new-instance v0, Ljava/lang/StringBuilder;
    const-string v1, "adbc-helper: sdk="
    invoke-direct {v0, v1}, Ljava/lang/StringBuilder;-><init>(Ljava/lang/String;)V
    sget v1, Landroid/os/Build$VERSION;->SDK_INT:I
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const-string v1, " ui="
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    sget-object v1, Lcom/adbconnector/helper/Ui;->how:Ljava/lang/String;
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const-string v1, " cache="
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    sget-object v1, Lcom/adbconnector/helper/Ui;->clearM:Ljava/lang/reflect/Method;
    invoke-static {v1}, Lcom/adbconnector/helper/Main;->owner(Ljava/lang/reflect/Method;)Ljava/lang/String;
    move-result-object v1
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const-string v1, " input="
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    sget-object v1, Lcom/adbconnector/helper/Input;->inj:Ljava/lang/reflect/Method;
    invoke-static {v1}, Lcom/adbconnector/helper/Main;->owner(Ljava/lang/reflect/Method;)Ljava/lang/String;
    move-result-object v1
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const-string v1, " clip_args="
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    sget-object v1, Lcom/adbconnector/helper/Clip;->get:Ljava/lang/reflect/Method;
    const/4 v2, -1
    if-eqz v1, :no_clip
    invoke-virtual {v1}, Ljava/lang/reflect/Method;->getParameterTypes()[Ljava/lang/Class;
    move-result-object v1
    array-length v2, v1
    :no_clip
    invoke-virtual {v0, v2}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    sget-object v1, Ljava/lang/System;->err:Ljava/io/PrintStream;
    invoke-virtual {v0}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v0
    invoke-virtual {v1, v0}, Ljava/io/PrintStream;->println(Ljava/lang/String;)V
    return-void
.end method

.method static owner(Ljava/lang/reflect/Method;)Ljava/lang/String;
    .registers 2
    if-nez p0, :have
    const-string v0, "none"
    return-object v0
    :have
    invoke-virtual {p0}, Ljava/lang/reflect/Method;->getDeclaringClass()Ljava/lang/Class;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Class;->getName()Ljava/lang/String;
    move-result-object v0
    return-object v0
.end method
