! The coarray program of the side-by-side comparison with Score-P
! (bench/scorep_side_by_side): each image puts a block into its right
! neighbour's coarray and gets one from its left neighbour, with `sync all`
! around, then sums and broadcasts with the collective subroutines. Prints
! one checksum per image, which the measurement must not change.
program caf_ring
    implicit none
    integer, parameter :: n = 64
    integer :: block(n)[*], from_left(n), total, me, images, right, left, i
    me = this_image()
    images = num_images()
    right = merge(1, me + 1, me == images)
    left = merge(images, me - 1, me == 1)
    block = [(me * 1000 + i, i = 1, n)]
    sync all
    block(1:n / 2)[right] = [(me * 10 + i, i = 1, n / 2)]
    sync all
    from_left = block(:)[left]
    sync all
    total = sum(from_left)
    call co_sum(total)
    call co_broadcast(total, source_image=1)
    print '(a,i0,a,i0)', 'image ', me, ' checksum ', total + sum(block)
end program caf_ring
