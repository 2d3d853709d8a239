.class public Lcom/adbconnector/helper/Clip;
.super Ljava/lang/Object;
.source "Clip.smali"

# The clipboard as the shell user, through the clipboard service's binder
# interface (IClipboard) rather than ClipboardManager, which needs an app
# Context: scrcpy's server does the same (wrappers/ClipboardManager). The
# methods' parameters grew across SDKs (Android 10: pkg, userId; 12:
# pkg, attributionTag, userId; 14: and deviceId), so the arguments are
# filled by type: the first String is our package ("com.android.shell",
# the shell's), further Strings null, ints 0 (user 0, the default device).

.field static svc:Ljava/lang/Object;
.field static get:Ljava/lang/reflect/Method;
.field static set:Ljava/lang/reflect/Method;

.method static init()Ljava/lang/String;
    .registers 10
    :try_start
    const-string v0, "android.os.ServiceManager"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    const/4 v1, 1
    new-array v2, v1, [Ljava/lang/Class;
    const/4 v3, 0
    const-class v4, Ljava/lang/String;
    aput-object v4, v2, v3
    const-string v4, "getService"
    invoke-virtual {v0, v4, v2}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v4
    new-array v5, v1, [Ljava/lang/Object;
    const-string v6, "clipboard"
    aput-object v6, v5, v3
    const/4 v6, 0
    invoke-virtual {v4, v6, v5}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v7
    if-eqz v7, :no_service
    const-string v0, "android.os.IBinder"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    aput-object v0, v2, v3
    const-string v0, "android.content.IClipboard$Stub"
    invoke-static {v0}, Ljava/lang/Class;->forName(Ljava/lang/String;)Ljava/lang/Class;
    move-result-object v0
    const-string v4, "asInterface"
    invoke-virtual {v0, v4, v2}, Ljava/lang/Class;->getMethod(Ljava/lang/String;[Ljava/lang/Class;)Ljava/lang/reflect/Method;
    move-result-object v4
    aput-object v7, v5, v3
    invoke-virtual {v4, v6, v5}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v7
    if-eqz v7, :no_service
    sput-object v7, Lcom/adbconnector/helper/Clip;->svc:Ljava/lang/Object;
    invoke-virtual {v7}, Ljava/lang/Object;->getClass()Ljava/lang/Class;
    move-result-object v0
    invoke-virtual {v0}, Ljava/lang/Class;->getMethods()[Ljava/lang/reflect/Method;
    move-result-object v0
    array-length v1, v0
    :scan
    if-ge v3, v1, :scanned
    aget-object v4, v0, v3
    invoke-virtual {v4}, Ljava/lang/reflect/Method;->getName()Ljava/lang/String;
    move-result-object v5
    const-string v6, "getPrimaryClip"
    invoke-virtual {v6, v5}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v6
    if-eqz v6, :not_get
    sput-object v4, Lcom/adbconnector/helper/Clip;->get:Ljava/lang/reflect/Method;
    :not_get
    const-string v6, "setPrimaryClip"
    invoke-virtual {v6, v5}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v6
    if-eqz v6, :next
    sput-object v4, Lcom/adbconnector/helper/Clip;->set:Ljava/lang/reflect/Method;
    :next
    add-int/lit8 v3, v3, 1
    goto :scan
    :scanned
    sget-object v0, Lcom/adbconnector/helper/Clip;->get:Ljava/lang/reflect/Method;
    if-eqz v0, :no_methods
    sget-object v0, Lcom/adbconnector/helper/Clip;->set:Ljava/lang/reflect/Method;
    if-eqz v0, :no_methods
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    const/4 v0, 0
    return-object v0
    :no_service
    const-string v0, "clipboard: no clipboard service"
    return-object v0
    :no_methods
    const/4 v0, 0
    sput-object v0, Lcom/adbconnector/helper/Clip;->get:Ljava/lang/reflect/Method;
    sput-object v0, Lcom/adbconnector/helper/Clip;->set:Ljava/lang/reflect/Method;
    const-string v0, "clipboard: no getPrimaryClip/setPrimaryClip"
    return-object v0
    :failed
    move-exception v0
    invoke-virtual {v0}, Ljava/lang/Throwable;->printStackTrace()V
    const/4 v1, 0
    sput-object v1, Lcom/adbconnector/helper/Clip;->get:Ljava/lang/reflect/Method;
    sput-object v1, Lcom/adbconnector/helper/Clip;->set:Ljava/lang/reflect/Method;
    invoke-static {v0}, Lcom/adbconnector/helper/Main;->root(Ljava/lang/Throwable;)Ljava/lang/Throwable;
    move-result-object v0
    new-instance v1, Ljava/lang/StringBuilder;
    const-string v2, "clipboard: "
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

# args fills m's parameters by type (see the class comment).
.method static args(Ljava/lang/reflect/Method;Landroid/content/ClipData;)[Ljava/lang/Object;
    .registers 10
    invoke-virtual {p0}, Ljava/lang/reflect/Method;->getParameterTypes()[Ljava/lang/Class;
    move-result-object v0
    array-length v1, v0
    new-array v2, v1, [Ljava/lang/Object;
    const/4 v3, 0
    const/4 v4, 0
    :loop
    if-ge v3, v1, :done
    aget-object v5, v0, v3
    const-class v6, Ljava/lang/String;
    if-ne v5, v6, :not_string
    if-nez v4, :next
    const-string v6, "com.android.shell"
    aput-object v6, v2, v3
    const/4 v4, 1
    goto :next
    :not_string
    sget-object v6, Ljava/lang/Integer;->TYPE:Ljava/lang/Class;
    if-ne v5, v6, :not_int
    const/4 v6, 0
    invoke-static {v6}, Ljava/lang/Integer;->valueOf(I)Ljava/lang/Integer;
    move-result-object v6
    aput-object v6, v2, v3
    goto :next
    :not_int
    const-class v6, Landroid/content/ClipData;
    if-ne v5, v6, :next
    aput-object p1, v2, v3
    :next
    add-int/lit8 v3, v3, 1
    goto :loop
    :done
    return-object v2
.end method

.method static need()V
    .registers 3
    sget-object v0, Lcom/adbconnector/helper/Clip;->set:Ljava/lang/reflect/Method;
    if-eqz v0, :missing
    return-void
    :missing
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "unsupported"
    const-string v2, "clipboard unavailable"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
.end method

# text returns the primary clip's first item as text ("" when empty).
.method static text()Ljava/lang/String;
    .registers 5
    invoke-static {}, Lcom/adbconnector/helper/Clip;->need()V
    sget-object v0, Lcom/adbconnector/helper/Clip;->get:Ljava/lang/reflect/Method;
    const/4 v1, 0
    invoke-static {v0, v1}, Lcom/adbconnector/helper/Clip;->args(Ljava/lang/reflect/Method;Landroid/content/ClipData;)[Ljava/lang/Object;
    move-result-object v1
    sget-object v2, Lcom/adbconnector/helper/Clip;->svc:Ljava/lang/Object;
    invoke-virtual {v0, v2, v1}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    move-result-object v0
    check-cast v0, Landroid/content/ClipData;
    if-eqz v0, :empty
    invoke-virtual {v0}, Landroid/content/ClipData;->getItemCount()I
    move-result v1
    if-eqz v1, :empty
    const/4 v1, 0
    invoke-virtual {v0, v1}, Landroid/content/ClipData;->getItemAt(I)Landroid/content/ClipData$Item;
    move-result-object v0
    invoke-virtual {v0}, Landroid/content/ClipData$Item;->getText()Ljava/lang/CharSequence;
    move-result-object v0
    if-eqz v0, :empty
    invoke-interface {v0}, Ljava/lang/CharSequence;->toString()Ljava/lang/String;
    move-result-object v0
    return-object v0
    :empty
    const-string v0, ""
    return-object v0
.end method

.method static setText(Ljava/lang/String;)V
    .registers 5
    invoke-static {}, Lcom/adbconnector/helper/Clip;->need()V
    const-string v0, "adbc"
    invoke-static {v0, p0}, Landroid/content/ClipData;->newPlainText(Ljava/lang/CharSequence;Ljava/lang/CharSequence;)Landroid/content/ClipData;
    move-result-object v0
    sget-object v1, Lcom/adbconnector/helper/Clip;->set:Ljava/lang/reflect/Method;
    invoke-static {v1, v0}, Lcom/adbconnector/helper/Clip;->args(Ljava/lang/reflect/Method;Landroid/content/ClipData;)[Ljava/lang/Object;
    move-result-object v2
    sget-object v3, Lcom/adbconnector/helper/Clip;->svc:Ljava/lang/Object;
    invoke-virtual {v1, v3, v2}, Ljava/lang/reflect/Method;->invoke(Ljava/lang/Object;[Ljava/lang/Object;)Ljava/lang/Object;
    return-void
.end method

.method static getOp(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    .registers 3
    invoke-static {p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    invoke-static {}, Lcom/adbconnector/helper/Clip;->text()Ljava/lang/String;
    move-result-object v0
    invoke-static {p1, v0}, Lcom/adbconnector/helper/Wire;->writeStr(Ljava/io/DataOutputStream;Ljava/lang/String;)V
    return-void
.end method

.method static setOp(Ljava/io/DataInputStream;)V
    .registers 2
    invoke-static {p0}, Lcom/adbconnector/helper/Wire;->readStr(Ljava/io/DataInputStream;)Ljava/lang/String;
    move-result-object v0
    invoke-static {p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    invoke-static {v0}, Lcom/adbconnector/helper/Clip;->setText(Ljava/lang/String;)V
    return-void
.end method
