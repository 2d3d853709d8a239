.class public Lcom/adbconnector/helper/Shot;
.super Ljava/lang/Object;
.source "Shot.smali"

# SHOT: u32 max_side (0 = full), u8 format (1 jpeg, 2 png), u8 quality.
# UiAutomation.takeScreenshot(), scaled so the longer side is max_side and
# encoded on the phone, so a 1024 px JPEG crosses the cable instead of the
# full frame. Answer: u32 width, height, device_width, device_height, u8
# secure, u32 n, n bytes. secure is 0: the capture shows FLAG_SECURE
# windows black and nothing here tells them apart (the host keeps its own
# check).
.method static shot(Ljava/io/DataInputStream;Ljava/io/DataOutputStream;)V
    .registers 16
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readInt()I
    move-result v0
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readUnsignedByte()I
    move-result v1
    invoke-virtual {p0}, Ljava/io/DataInputStream;->readUnsignedByte()I
    move-result v2
    invoke-static {p0}, Lcom/adbconnector/helper/Main;->done(Ljava/io/DataInputStream;)V
    if-ltz v0, :bad
    const/16 v3, 100
    if-gt v2, v3, :bad
    const/4 v3, 1
    if-ne v1, v3, :not_jpeg
    sget-object v12, Landroid/graphics/Bitmap$CompressFormat;->JPEG:Landroid/graphics/Bitmap$CompressFormat;
    goto :format
    :not_jpeg
    const/4 v3, 2
    if-ne v1, v3, :bad
    sget-object v12, Landroid/graphics/Bitmap$CompressFormat;->PNG:Landroid/graphics/Bitmap$CompressFormat;
    :format
    invoke-static {}, Lcom/adbconnector/helper/Ui;->need()Landroid/app/UiAutomation;
    move-result-object v3
    invoke-virtual {v3}, Landroid/app/UiAutomation;->takeScreenshot()Landroid/graphics/Bitmap;
    move-result-object v3
    if-nez v3, :captured
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "internal"
    const-string v2, "takeScreenshot returned nothing"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
    :captured
    # From Android 12 the capture may be a HARDWARE bitmap, which software
    # scaling refuses ("Software rendering doesn't support hardware
    # bitmaps"): copy it to ARGB_8888 first. Compared by name, as
    # Config.HARDWARE is absent before Android 8.
    invoke-virtual {v3}, Landroid/graphics/Bitmap;->getConfig()Landroid/graphics/Bitmap$Config;
    move-result-object v4
    invoke-static {v4}, Ljava/lang/String;->valueOf(Ljava/lang/Object;)Ljava/lang/String;
    move-result-object v4
    const-string v5, "HARDWARE"
    invoke-virtual {v5, v4}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v4
    if-eqz v4, :software
    sget-object v4, Landroid/graphics/Bitmap$Config;->ARGB_8888:Landroid/graphics/Bitmap$Config;
    const/4 v5, 0
    invoke-virtual {v3, v4, v5}, Landroid/graphics/Bitmap;->copy(Landroid/graphics/Bitmap$Config;Z)Landroid/graphics/Bitmap;
    move-result-object v3
    :software
    invoke-virtual {v3}, Landroid/graphics/Bitmap;->getWidth()I
    move-result v4
    invoke-virtual {v3}, Landroid/graphics/Bitmap;->getHeight()I
    move-result v5
    move v6, v4
    move v7, v5
    move-object v8, v3
    if-eqz v0, :sized
    # the longer side becomes max_side, the other keeps the ratio (rounded)
    if-lt v4, v5, :tall
    if-ge v0, v4, :sized
    move v6, v0
    invoke-static {v5, v0, v4}, Lcom/adbconnector/helper/Shot;->scale(III)I
    move-result v7
    goto :resize
    :tall
    if-ge v0, v5, :sized
    move v7, v0
    invoke-static {v4, v0, v5}, Lcom/adbconnector/helper/Shot;->scale(III)I
    move-result v6
    :resize
    const/4 v9, 1
    invoke-static {v3, v6, v7, v9}, Landroid/graphics/Bitmap;->createScaledBitmap(Landroid/graphics/Bitmap;IIZ)Landroid/graphics/Bitmap;
    move-result-object v8
    :sized
    new-instance v9, Ljava/io/ByteArrayOutputStream;
    const/high16 v10, 0x40000
    invoke-direct {v9, v10}, Ljava/io/ByteArrayOutputStream;-><init>(I)V
    invoke-virtual {v8, v12, v2, v9}, Landroid/graphics/Bitmap;->compress(Landroid/graphics/Bitmap$CompressFormat;ILjava/io/OutputStream;)Z
    move-result v10
    if-nez v10, :encoded
    new-instance v0, Lcom/adbconnector/helper/Fail;
    const-string v1, "internal"
    const-string v2, "Bitmap.compress failed"
    invoke-direct {v0, v1, v2}, Lcom/adbconnector/helper/Fail;-><init>(Ljava/lang/String;Ljava/lang/String;)V
    throw v0
    :encoded
    invoke-virtual {p1, v6}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {p1, v7}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {p1, v4}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {p1, v5}, Ljava/io/DataOutputStream;->writeInt(I)V
    const/4 v10, 0
    invoke-virtual {p1, v10}, Ljava/io/DataOutputStream;->writeByte(I)V
    invoke-virtual {v9}, Ljava/io/ByteArrayOutputStream;->size()I
    move-result v10
    invoke-virtual {p1, v10}, Ljava/io/DataOutputStream;->writeInt(I)V
    invoke-virtual {v9, p1}, Ljava/io/ByteArrayOutputStream;->writeTo(Ljava/io/OutputStream;)V
    return-void
    :bad
    const-string v0, "shot: max_side, format or quality out of range"
    invoke-static {v0}, Lcom/adbconnector/helper/Fail;->bad(Ljava/lang/String;)Lcom/adbconnector/helper/Fail;
    move-result-object v0
    throw v0
.end method

# scale returns round(side * num / den), at least 1.
.method static scale(III)I
    .registers 8
    int-to-long v0, p0
    int-to-long v2, p1
    mul-long/2addr v0, v2
    div-int/lit8 v4, p2, 2
    int-to-long v2, v4
    add-long/2addr v0, v2
    int-to-long v2, p2
    div-long/2addr v0, v2
    long-to-int v0, v0
    const/4 v1, 1
    if-ge v0, v1, :ok
    move v0, v1
    :ok
    return v0
.end method
